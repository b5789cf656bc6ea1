/// A Huffman table's codes by symbol, as libjpeg's `jpeg_make_c_derived_tbl` assigns them
/// (canonical: codes of each length are consecutive, shorter lengths first).
struct JPEGHuffmanCodes {
    /// `entries[symbol]`: `code << 8 | length`; 0 for a symbol the table lacks.
    let entries: [UInt32]

    init(_ spec: JPEGHuffmanSpec) {
        var entries = [UInt32](repeating: 0, count: 256)
        var code: UInt32 = 0
        var index = 0
        for (lengthIndex, count) in spec.counts.enumerated() {
            for _ in 0 ..< Int(count) {
                entries[Int(spec.symbols[index])] = code << 8 | UInt32(lengthIndex + 1)
                code += 1
                index += 1
            }
            code <<= 1
        }
        self.entries = entries
    }
}

/// Huffman coding of the one interleaved baseline scan (jchuff.c): symbol counts for optimised tables
/// (`encode_mcu_gather`) and the codes themselves (`encode_one_block`), over any range of MCU rows so
/// that both run in parallel parts.
struct JPEGEntropyEncoder {
    let store: JPEGCoefficientStore

    /// Bits needed for a coefficient or difference of magnitude `|value|` (its JPEG size category).
    @inline(__always) private static func category(_ value: Int32) -> Int {
        let magnitude = value < 0 ? 0 &- value : value
        return 32 &- magnitude.leadingZeroBitCount
    }

    /// Adds the symbols of MCU rows `mcuRows` to `counts`: 4 x 256 counts, DC table 0, AC table 0,
    /// DC table 1, AC table 1.
    func countSymbols(mcuRows: Range<Int>, into counts: UnsafeMutablePointer<Int>) {
        store.forEachBlock(mcuRows: mcuRows) { table, difference, values, acMask in
            let dc = counts + table &* 512, ac = dc + 256
            dc[Self.category(difference)] &+= 1
            var mask = acMask, next = 1, offset = 0
            while mask != 0 {
                let k = mask.trailingZeroBitCount
                var run = k &- next
                while run > 15 {
                    ac[0xF0] &+= 1
                    run &-= 16
                }
                ac[run &<< 4 | Self.category(Int32(values.load(fromByteOffset: offset, as: Int16.self)))] &+= 1
                offset &+= 2
                next = k &+ 1
                mask &= mask &- 1
            }
            if next != 64 { ac[0] &+= 1 }
        }
    }

    /// Codes MCU rows `mcuRows` into `writer` with `codes` (DC table 0, AC table 0, DC table 1,
    /// AC table 1; each 256 `code << 8 | length` entries).
    func encode(mcuRows: Range<Int>, codes: UnsafePointer<UInt32>, into writer: inout JPEGBitWriter) {
        store.forEachBlock(mcuRows: mcuRows) { table, difference, values, acMask in
            // Room for one block: at most 16 + 11 bits of DC and 63 x (16 + 10) of AC, 27 words.
            writer.reserve(27)
            let dc = codes + table &* 512, ac = dc + 256
            @inline(__always) func put(_ entry: UInt32, _ value: Int32, _ size: Int) {
                let bits = UInt64(entry &>> 8) &<< UInt64(size) | UInt64(truncatingIfNeeded: value) & ((1 &<< UInt64(size)) &- 1)
                writer.write(bits, count: Int(entry & 0xFF) &+ size)
            }
            let dcSize = Self.category(difference)
            put(dc[dcSize], difference < 0 ? difference &- 1 : difference, dcSize)
            var mask = acMask, next = 1, offset = 0
            while mask != 0 {
                let k = mask.trailingZeroBitCount
                var run = k &- next
                while run > 15 {
                    put(ac[0xF0], 0, 0)
                    run &-= 16
                }
                let value = Int32(values.load(fromByteOffset: offset, as: Int16.self))
                let size = Self.category(value)
                put(ac[run &<< 4 | size], value < 0 ? value &- 1 : value, size)
                offset &+= 2
                next = k &+ 1
                mask &= mask &- 1
            }
            if next != 64 { put(ac[0], 0, 0) }
        }
    }
}
