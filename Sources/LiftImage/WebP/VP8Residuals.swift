/// Reads the DCT/WHT coefficient tokens of macroblocks (RFC 6386 §13) from a token partition, keeping
/// the "has coefficients" contexts of the blocks above (one row per frame) and to the left.
///
/// A macroblock's coefficients go to 25 blocks of 16 `Int16` in raster order: 0…15 luma, 16…19 U,
/// 20…23 V, 24 Y2, dequantised (and truncated to 16 bits, as libwebp stores them).
final class VP8Residuals {
    /// Contexts of the macroblock row above, 9 per macroblock: 4 luma, 2 U, 2 V, 1 Y2 (0 or 1).
    private let above: UnsafeMutablePointer<UInt8>
    /// Contexts of the macroblock to the left, same layout.
    private let left = UnsafeMutablePointer<UInt8>.allocate(capacity: 9)
    /// The frame's token probabilities (`VP8Tables.defaultCoefficientProbabilities` layout).
    private let probabilities = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * 8 * 3 * 11)
    /// Offset of the probabilities of (type, band of position n), at index `type · 17 + n`.
    private let bandOffsets = UnsafeMutablePointer<Int>.allocate(capacity: 4 * 17)
    private let zigzag = UnsafeMutablePointer<Int>.allocate(capacity: 16)
    private let macroblocks: Int

    /// Block types that select the probability tables (RFC 6386 §13.3).
    private static let lumaAfterY2 = 0, y2 = 1, chroma = 2, lumaWithDC = 3

    init(macroblocksPerRow: Int, probabilities table: [UInt8]) {
        macroblocks = macroblocksPerRow
        above = .allocate(capacity: macroblocksPerRow * 9)
        above.initialize(repeating: 0, count: macroblocksPerRow * 9)
        left.initialize(repeating: 0, count: 9)
        probabilities.initialize(from: table, count: 4 * 8 * 3 * 11)
        for type in 0 ..< 4 {
            for n in 0 ..< 17 { bandOffsets[type * 17 + n] = (type * 8 + VP8Tables.bands[n]) * 3 * 11 }
        }
        zigzag.initialize(from: VP8Tables.zigzag, count: 16)
    }

    deinit {
        above.deallocate()
        left.deallocate()
        probabilities.deallocate()
        bandOffsets.deallocate()
        zigzag.deallocate()
    }

    /// Clears the left contexts at the start of a macroblock row.
    func startRow() {
        for i in 0 ..< 9 { left[i] = 0 }
    }

    /// Clears the contexts of a macroblock that skips its coefficients (the Y2 ones only when it has a
    /// Y2 block, i.e. no subblock modes).
    func skip(column: Int, hasSubblockModes: Bool) {
        for i in 0 ..< 8 {
            above[column * 9 + i] = 0
            left[i] = 0
        }
        if !hasSubblockModes {
            above[column * 9 + 8] = 0
            left[8] = 0
        }
    }

    /// Reads a macroblock's coefficients into `blocks` (25 × 16, zeroed by the caller).
    /// - Returns: whether any block has a coefficient the reconstruction uses — a block whose tokens
    ///   go past position 1, or whose DC (after the Y2 transform for 16×16 modes) is non-zero. This is
    ///   libwebp's test for filtering the inner edges of a 16×16-predicted macroblock.
    func read(_ reader: inout VP8BoolDecoder, column: Int, hasSubblockModes: Bool, quantizer: VP8Quantizer,
              into blocks: UnsafeMutablePointer<Int16>) -> Bool {
        let a = column * 9
        var coded = false
        let lumaType: Int, first: Int
        if hasSubblockModes {
            lumaType = Self.lumaWithDC
            first = 0
        } else {
            let y2 = blocks + 24 * 16
            let end = readBlock(&reader, type: Self.y2, context: Int(above[a + 8] + left[8]),
                                     first: 0, dc: quantizer.y2.dc, ac: quantizer.y2.ac, into: y2)
            let hasTokens: UInt8 = end > 0 ? 1 : 0
            above[a + 8] = hasTokens
            left[8] = hasTokens
            VP8Transform.inverseWHT(y2, into: blocks)
            lumaType = Self.lumaAfterY2
            first = 1
        }
        for y in 0 ..< 4 {
            for x in 0 ..< 4 {
                let block = blocks + (y * 4 + x) * 16
                let end = readBlock(&reader, type: lumaType, context: Int(above[a + x] + left[y]),
                                         first: first, dc: quantizer.y.dc, ac: quantizer.y.ac, into: block)
                let hasTokens: UInt8 = end > first ? 1 : 0
                above[a + x] = hasTokens
                left[y] = hasTokens
                coded = coded || end > 1 || block[0] != 0
            }
        }
        for plane in 0 ..< 2 {
            for y in 0 ..< 2 {
                for x in 0 ..< 2 {
                    let block = blocks + (16 + plane * 4 + y * 2 + x) * 16
                    let aboveIndex = a + 4 + plane * 2 + x, leftIndex = 4 + plane * 2 + y
                    let end = readBlock(&reader, type: Self.chroma, context: Int(above[aboveIndex] + left[leftIndex]),
                                             first: 0, dc: quantizer.uv.dc, ac: quantizer.uv.ac, into: block)
                    let hasTokens: UInt8 = end > 0 ? 1 : 0
                    above[aboveIndex] = hasTokens
                    left[leftIndex] = hasTokens
                    coded = coded || end > 1 || block[0] != 0
                }
            }
        }
        return coded
    }

    /// Reads one block's tokens from position `first`, with `context` (0…2) for its first token.
    /// - Returns: the position after the last token read before the end-of-block token (16 when the
    ///   block runs to its end); `first` when it has none.
    private func readBlock(_ reader: inout VP8BoolDecoder, type: Int, context: Int, first: Int, dc: Int32, ac: Int32,
                           into out: UnsafeMutablePointer<Int16>) -> Int {
        let bands = bandOffsets + type &* 17
        var n = first
        var p = UnsafePointer(probabilities + (bands[n] &+ context &* 11))
        while n < 16 {
            if !reader.read(p[0]) { return n } // end of block
            while !reader.read(p[1]) {          // a zero; no end-of-block may follow
                n &+= 1
                if n == 16 { return 16 }
                p = UnsafePointer(probabilities + bands[n])
            }
            let value: Int
            let nextContext: Int
            if !reader.read(p[2]) {
                value = 1
                nextContext = 1
            } else {
                value = Self.readLargeValue(&reader, p)
                nextContext = 2
            }
            let signed = reader.read(128) ? -value : value
            out[zigzag[n]] = Int16(truncatingIfNeeded: Int32(signed) &* (n > 0 ? ac : dc))
            n &+= 1
            p = UnsafePointer(probabilities + (bands[n] &+ nextContext &* 11))
        }
        return 16
    }

    /// Reads a token of value 2 or more (the tree below the `DCT_1` node) and its extra bits.
    private static func readLargeValue(_ reader: inout VP8BoolDecoder, _ p: UnsafePointer<UInt8>) -> Int {
        if !reader.read(p[3]) {
            if !reader.read(p[4]) { return 2 }
            return 3 + reader.readBit(p[5])
        }
        if !reader.read(p[6]) {
            if !reader.read(p[7]) { return 5 + reader.readBit(159) }          // category 1: 5…6
            return 7 + 2 * reader.readBit(165) + reader.readBit(145)          // category 2: 7…10
        }
        let high = reader.readBit(p[8])
        let category = 2 * high + reader.readBit(p[9 + high])                 // categories 3…6
        var extra = 0
        for probability in VP8Tables.categoryProbabilities[category] { extra = extra << 1 | reader.readBit(probability) }
        return VP8Tables.categoryBase[category] + extra
    }
}
