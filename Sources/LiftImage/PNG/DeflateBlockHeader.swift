/// The header of a deflate block with dynamic Huffman codes (RFC 1951 §3.2.7): BFINAL, BTYPE = 2,
/// HLIT/HDIST/HCLEN, the code-length code, then the literal/length and distance code lengths
/// run-length coded with symbols 16 (repeat the previous length 3…6 times), 17 (3…10 zeros) and
/// 18 (11…138 zeros).
struct DeflateBlockHeader {
    /// The order in which the code-length code's lengths are sent.
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    /// Extra bits after code-length symbols 16, 17, 18.
    private static let repeatExtraBits = [2, 3, 7]

    /// Literal/length codes sent (257…286) and distance codes sent (1…30).
    private let literalCount: Int, distanceCount: Int
    /// The code-length code, and how many of its lengths are sent (4…19, in `codeLengthOrder`).
    private let codeLengthCode: DeflateHuffmanCode
    private let codeLengthCount: Int
    /// The run-length coded code lengths: code-length symbol (0…18) and its extra bits' value.
    private let items: [(symbol: Int, extra: Int)]
    /// Total bits of the header, BFINAL and BTYPE included.
    let bitCount: Int

    /// The header that sends `literalLengths` (286 entries; 256, end of block, must have a code) and
    /// `distanceLengths` (30 entries, at least one code).
    init(literalLengths: [UInt8], distanceLengths: [UInt8]) {
        literalCount = max(257, (literalLengths.lastIndex { $0 != 0 } ?? 0) + 1)
        distanceCount = max(1, (distanceLengths.lastIndex { $0 != 0 } ?? 0) + 1)
        let lengths = Array(literalLengths[0..<literalCount] + distanceLengths[0..<distanceCount])
        var items: [(symbol: Int, extra: Int)] = []
        var i = 0
        while i < lengths.count {
            let length = lengths[i]
            var run = 1
            while i + run < lengths.count && lengths[i + run] == length { run += 1 }
            i += run
            if length == 0 {
                while run >= 11 { let n = min(run, 138); items.append((18, n - 11)); run -= n }
                if run >= 3 { items.append((17, run - 3)); run = 0 }
            } else {
                items.append((Int(length), 0))
                run -= 1
                while run >= 3 { let n = min(run, 6); items.append((16, n - 3)); run -= n }
            }
            for _ in 0..<run { items.append((Int(length), 0)) }
        }
        var frequencies = [Int](repeating: 0, count: 19)
        for item in items { frequencies[item.symbol] += 1 }
        let code = DeflateHuffmanCode(frequencies: frequencies, limit: 7)
        codeLengthCount = max(4, (Self.codeLengthOrder.lastIndex { code.lengths[$0] != 0 } ?? 0) + 1)
        var bits = 3 + 5 + 5 + 4 + 3 * codeLengthCount + code.cost(of: frequencies)
        for item in items where item.symbol >= 16 { bits += Self.repeatExtraBits[item.symbol - 16] }
        bitCount = bits
        codeLengthCode = code
        self.items = items
    }

    /// Writes the header; `final` sets BFINAL.
    func write(final: Bool, to writer: inout DeflateBitWriter) {
        writer.write(final ? 0b101 : 0b100, count: 3)  // BFINAL, then BTYPE = 2 (least significant bit first)
        writer.write(UInt64(literalCount - 257), count: 5)
        writer.write(UInt64(distanceCount - 1), count: 5)
        writer.write(UInt64(codeLengthCount - 4), count: 4)
        for symbol in Self.codeLengthOrder[0..<codeLengthCount] { writer.write(UInt64(codeLengthCode.lengths[symbol]), count: 3) }
        for item in items {
            writer.write(UInt64(codeLengthCode.codes[item.symbol]), count: Int(codeLengthCode.lengths[item.symbol]))
            if item.symbol >= 16 { writer.write(UInt64(item.extra), count: Self.repeatExtraBits[item.symbol - 16]) }
        }
    }
}
