/// The five prefix codes that decode the pixels of one region of a lossless image (RFC 9649 §3.7.2.2):
/// green with backward-reference lengths and colour-cache indices, red, blue, alpha, and distances.
struct VP8LPrefixCodeGroup {
    var green: VP8LPrefixCode
    var red: VP8LPrefixCode
    var blue: VP8LPrefixCode
    var alpha: VP8LPrefixCode
    var distance: VP8LPrefixCode

    /// Symbols of the green code before the colour-cache ones: 256 literals and 24 length prefixes.
    static let greenLiteralsAndLengths = 256 + 24
    /// Symbols of the distance code.
    static let distanceSymbols = 40
    /// The order in which the code-length code's lengths are sent.
    static let codeLengthOrder = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
}

extension VP8LPrefixTables {
    /// Reads `count` prefix code groups for an image with a colour cache of `cacheBits` bits (0: none).
    /// Groups whose entry in `used` is false are read and checked but get no tables (an entropy image
    /// may name up to 65536 groups and use few of them); their place holds an empty group.
    mutating func readGroups(_ reader: inout VP8LBitReader, count: Int, cacheBits: Int,
                             used: [Bool]?) throws(WebPError) -> [VP8LPrefixCodeGroup] {
        let greenSymbols = VP8LPrefixCodeGroup.greenLiteralsAndLengths + (cacheBits > 0 ? 1 << cacheBits : 0)
        var lengths = [UInt8](repeating: 0, count: greenSymbols)
        let unused = VP8LPrefixCode(root: 0, rootBits: 0)
        var groups: [VP8LPrefixCodeGroup] = []
        groups.reserveCapacity(count)
        for index in 0 ..< count {
            let store = used?[index] ?? true
            let green = try readCode(&reader, symbols: greenSymbols, lengths: &lengths, store: store)
            let red = try readCode(&reader, symbols: 256, lengths: &lengths, store: store)
            let blue = try readCode(&reader, symbols: 256, lengths: &lengths, store: store)
            let alpha = try readCode(&reader, symbols: 256, lengths: &lengths, store: store)
            let distance = try readCode(&reader, symbols: VP8LPrefixCodeGroup.distanceSymbols, lengths: &lengths, store: store)
            groups.append(store ? VP8LPrefixCodeGroup(green: green, red: red, blue: blue, alpha: alpha, distance: distance)
                                : VP8LPrefixCodeGroup(green: unused, red: unused, blue: unused, alpha: unused, distance: unused))
        }
        return groups
    }

    /// Reads one prefix code of `symbols` symbols: a simple code (one or two 1-bit codes for symbols
    /// below 256) or code lengths coded with the code-length code, then builds it.
    private mutating func readCode(_ reader: inout VP8LBitReader, symbols: Int, lengths: inout [UInt8],
                                   store: Bool) throws(WebPError) -> VP8LPrefixCode {
        for i in 0 ..< symbols { lengths[i] = 0 }
        if reader.readFlag() {
            // Simple code: symbols outside this alphabet (possible for distances) are dropped, as in libwebp.
            let twoSymbols = reader.readFlag()
            let first = reader.read(reader.readFlag() ? 8 : 1)
            if first < symbols { lengths[first] = 1 }
            if twoSymbols {
                let second = reader.read(8)
                if second < symbols { lengths[second] = 1 }
            }
        } else {
            try readCodeLengths(&reader, symbols: symbols, lengths: &lengths)
        }
        guard !reader.isPastEnd else { throw .truncatedLosslessData }
        return try lengths.withUnsafeBufferPointer { (all) throws(WebPError) in
            try build(lengths: UnsafeBufferPointer(rebasing: all[..<symbols]), store: store)
        }
    }

    /// Reads a normal code's lengths: the code-length code's lengths (3 bits each, in
    /// `codeLengthOrder`), an optional count of lengths to read, then the lengths, with 16 repeating
    /// the last non-zero length (8 before any) 3–6 times and 17/18 giving 3–10/11–138 zeros.
    private mutating func readCodeLengths(_ reader: inout VP8LBitReader, symbols: Int, lengths: inout [UInt8]) throws(WebPError) {
        var codeLengthLengths = [UInt8](repeating: 0, count: VP8LPrefixCodeGroup.codeLengthOrder.count)
        let sent = reader.read(4) + 4
        for i in 0 ..< sent { codeLengthLengths[VP8LPrefixCodeGroup.codeLengthOrder[i]] = UInt8(reader.read(3)) }
        guard !reader.isPastEnd else { throw .truncatedLosslessData }
        // The code-length code lives in scratch tables of its own.
        var scratch = VP8LPrefixTables(maxEntries: 1 << 8)
        let codeLengthCode = try codeLengthLengths.withUnsafeBufferPointer { (lengths) throws(WebPError) in
            try scratch.build(lengths: lengths)
        }
        var remaining = symbols
        if reader.readFlag() {
            let bits = 2 + 2 * reader.read(3)
            remaining = 2 + reader.read(bits)
            guard remaining <= symbols else {
                throw .invalidPrefixCode(reason: "it sends \(remaining) code lengths for an alphabet of \(symbols) symbols")
            }
        }
        var previous: UInt8 = 8
        var symbol = 0
        try scratch.entries.withUnsafeBufferPointer { (entries) throws(WebPError) in
            guard let table = entries.baseAddress else { return }
            while symbol < symbols && remaining > 0 {
                remaining -= 1
                reader.refill()
                let code = codeLengthCode.read(&reader, table)
                if code < 16 {
                    lengths[symbol] = UInt8(code)
                    symbol += 1
                    if code != 0 { previous = UInt8(code) }
                    continue
                }
                let (extraBits, base): (Int, Int) = code == 16 ? (2, 3) : code == 17 ? (3, 3) : (7, 11)
                let repeats = base + reader.read(extraBits)
                guard symbol + repeats <= symbols else {
                    throw .invalidPrefixCode(reason: "a repeat of \(repeats) lengths runs past the \(symbols)-symbol alphabet")
                }
                let value = code == 16 ? previous : 0
                for i in symbol ..< symbol + repeats { lengths[i] = value }
                symbol += repeats
            }
        }
    }
}
