/// Canonical prefix (Huffman) codes of the lossless format (RFC 9649 §3.7.2), decoded by table
/// lookup: a root table indexed by the next `rootBits` bits of the stream, whose entries give a
/// symbol and its code length, or point to a second-level table for longer codes.
///
/// Every code of an image lives in one `VP8LPrefixTables` array; a `VP8LPrefixCode` is its place there.
/// Entry layout (UInt32): bits 16…31 the symbol (or the second-level table's offset from the root),
/// bit 8 set for a link to a second-level table, bits 0…7 the bits to consume (for a link: the
/// second-level table's index bits).
struct VP8LPrefixCode {
    /// Index of the root table in `VP8LPrefixTables.entries`.
    var root: Int32
    /// Bits that index the root table (0 for a code of one symbol, which reads no bits).
    var rootBits: UInt8

    /// The longest code length the format allows.
    static let maxLength = 15
    /// Root table bits for long codes: 256 entries, so most symbols take one lookup.
    static let maxRootBits = 8
    /// Entry flag of a link to a second-level table.
    static let linkFlag: UInt32 = 0x100

    /// Reads one symbol; `reader` must have been refilled (15 bits at most are consumed).
    @inline(__always)
    func read(_ reader: inout VP8LBitReader, _ entries: UnsafePointer<UInt32>) -> Int {
        let bits = reader.peek32
        let rootBits = Int(self.rootBits)
        var entry = entries[Int(root) &+ Int(bits & ((1 &<< UInt32(rootBits)) &- 1))]
        if entry & Self.linkFlag != 0 {
            let subBits = UInt32(entry & 0xFF)
            let index = Int(root) &+ Int(entry &>> 16) &+ Int((bits &>> UInt32(rootBits)) & ((1 &<< subBits) &- 1))
            reader.skip(rootBits)
            entry = entries[index]
        }
        reader.skip(Int(entry & 0xFF))
        return Int(entry &>> 16)
    }
}

/// The lookup tables of every prefix code read from one lossless image stream.
struct VP8LPrefixTables {
    /// All codes' tables, one after another.
    var entries: [UInt32] = []
    /// The most entries the tables may hold (from `DecodingLimits`), so that a stream declaring
    /// thousands of codes cannot take unbounded memory.
    let maxEntries: Int

    /// Tables limited to `maxEntries` entries in all.
    init(maxEntries: Int) {
        self.maxEntries = maxEntries
    }

    /// Builds the code whose code lengths (0: unused symbol) are `lengths`, after checking that it is
    /// complete (a code of one symbol, of any length, reads no bits, as libwebp decodes it).
    /// With `store` false the lengths are only checked, for prefix code groups no pixel uses.
    /// - Throws: `WebPError.invalidPrefixCode` for an empty, over-subscribed or incomplete code;
    ///   `.limitExceeded` when the tables would pass `maxEntries`.
    mutating func build(lengths: UnsafeBufferPointer<UInt8>, store: Bool = true) throws(WebPError) -> VP8LPrefixCode {
        var counts = [Int](repeating: 0, count: VP8LPrefixCode.maxLength + 1)
        var used = 0, lastSymbol = 0, longest = 0
        for (symbol, length) in lengths.enumerated() where length > 0 {
            counts[Int(length)] += 1
            used += 1
            lastSymbol = symbol
            longest = max(longest, Int(length))
        }
        guard used > 0 else { throw .invalidPrefixCode(reason: "all \(lengths.count) code lengths are zero") }
        if used == 1 {
            guard store else { return VP8LPrefixCode(root: 0, rootBits: 0) }
            try reserve(1)
            entries.append(UInt32(lastSymbol) << 16)
            return VP8LPrefixCode(root: Int32(entries.count - 1), rootBits: 0)
        }
        var open = 1
        for length in 1 ... VP8LPrefixCode.maxLength {
            open = open << 1 - counts[length]
            guard open >= 0 else { throw .invalidPrefixCode(reason: "the code lengths over-subscribe the code space at length \(length)") }
        }
        guard open == 0 else { throw .invalidPrefixCode(reason: "the code lengths leave the code incomplete") }
        guard store else { return VP8LPrefixCode(root: 0, rootBits: 0) }

        // First canonical code of each length: shorter codes first, then by symbol.
        var firstCode = [Int](repeating: 0, count: VP8LPrefixCode.maxLength + 1)
        var code = 0
        for length in 1 ... VP8LPrefixCode.maxLength {
            code = (code + counts[length - 1]) << 1
            firstCode[length] = code
        }
        let rootBits = min(longest, VP8LPrefixCode.maxRootBits)
        let rootSize = 1 << rootBits, rootMask = rootSize - 1
        // Sizes of the second-level tables: the longest code under each root prefix.
        var subLongest = [Int](repeating: 0, count: longest > rootBits ? rootSize : 0)
        if longest > rootBits {
            var next = firstCode
            for (_, length) in lengths.enumerated() where Int(length) > rootBits {
                let reversed = Self.reverse(next[Int(length)], bits: Int(length))
                next[Int(length)] += 1
                subLongest[reversed & rootMask] = max(subLongest[reversed & rootMask], Int(length))
            }
        }
        let subSize = subLongest.reduce(0) { $0 + ($1 > 0 ? 1 << ($1 - rootBits) : 0) }
        try reserve(rootSize + subSize)
        let root = entries.count
        entries.append(contentsOf: repeatElement(0, count: rootSize))
        for (prefix, length) in subLongest.enumerated() where length > 0 {
            let bits = length - rootBits
            entries[root + prefix] = UInt32(entries.count - root) << 16 | VP8LPrefixCode.linkFlag | UInt32(bits)
            entries.append(contentsOf: repeatElement(0, count: 1 << bits))
        }
        var next = firstCode
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let length = Int(length)
            let reversed = Self.reverse(next[length], bits: length)
            next[length] += 1
            if length <= rootBits {
                for index in stride(from: reversed, to: rootSize, by: 1 << length) {
                    entries[root + index] = UInt32(symbol) << 16 | UInt32(length)
                }
            } else {
                let link = entries[root + (reversed & rootMask)]
                let table = root + Int(link >> 16), tableSize = 1 << Int(link & 0xFF)
                for index in stride(from: reversed >> rootBits, to: tableSize, by: 1 << (length - rootBits)) {
                    entries[table + index] = UInt32(symbol) << 16 | UInt32(length - rootBits)
                }
            }
        }
        return VP8LPrefixCode(root: Int32(root), rootBits: UInt8(rootBits))
    }

    /// Checks that `count` more entries fit under `maxEntries`.
    private func reserve(_ count: Int) throws(WebPError) {
        guard entries.count + count <= maxEntries else {
            throw .limitExceeded(what: "prefix code table size in bytes", value: (entries.count + count) * 4, limit: maxEntries * 4)
        }
    }

    /// `code`'s low `bits` bits in reverse order: the stream sends a code's most significant bit first.
    private static func reverse(_ code: Int, bits: Int) -> Int {
        var value = code, reversed = 0
        for _ in 0 ..< bits {
            reversed = reversed << 1 | value & 1
            value >>= 1
        }
        return reversed
    }
}
