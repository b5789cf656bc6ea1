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
/// that both run in parallel parts. Blocks of an MCU that reach past a component's real blocks are
/// libjpeg's dummy blocks: their DC repeats the previous block's, so each codes as a zero DC
/// difference and an end-of-block.
struct JPEGEntropyEncoder {
    let store: JPEGCoefficientStore

    /// Each component's DC value after the MCU rows before `mcuRow` (the scan's DC predictors):
    /// the DC of the last real block of the previous row's last MCU, 0 at the top.
    func predictors(before mcuRow: Int) -> SIMD4<Int32> {
        var result = SIMD4<Int32>()
        guard mcuRow > 0 else { return result }
        let layout = store.layout, mx = layout.mcusPerLine - 1, my = mcuRow - 1
        for (index, component) in layout.components.enumerated() {
            search: for yy in (0 ..< component.v).reversed() {
                for xx in (0 ..< component.h).reversed() {
                    let bx = mx * component.h + xx, by = my * component.v + yy
                    if bx < component.blocksPerLine, by < component.blockRows {
                        result[index] = Int32(store.coefficients[index][(by * component.blocksPerLine + bx) * 64])
                        break search
                    }
                }
            }
        }
        return result
    }

    /// Calls `body` for every block of MCU rows `mcuRows` in scan order with the block's table index,
    /// its DC difference, its coefficients (zigzag) and the mask of its non-zero AC coefficients.
    @inline(__always)
    private func forEachBlock(mcuRows: Range<Int>,
                              _ body: (_ table: Int, _ dcDifference: Int32, _ block: UnsafePointer<Int16>, _ acMask: UInt64) -> Void) {
        let layout = store.layout
        var predictors = predictors(before: mcuRows.lowerBound)
        for my in mcuRows {
            for mx in 0 ..< layout.mcusPerLine {
                for (index, component) in layout.components.enumerated() {
                    let coefficients = store.coefficients[index], masks = store.masks[index]
                    for yy in 0 ..< component.v {
                        let by = my &* component.v &+ yy
                        for xx in 0 ..< component.h {
                            let bx = mx &* component.h &+ xx
                            guard bx < component.blocksPerLine, by < component.blockRows else {
                                body(component.table, 0, coefficients, 0)
                                continue
                            }
                            let block = by &* component.blocksPerLine &+ bx
                            let pointer = coefficients + block &* 64
                            let dc = Int32(pointer[0])
                            body(component.table, dc &- predictors[index], pointer, masks[block] & ~1)
                            predictors[index] = dc
                        }
                    }
                }
            }
        }
    }

    /// Bits needed for a coefficient or difference of magnitude `|value|` (its JPEG size category).
    @inline(__always) private static func category(_ value: Int32) -> Int {
        let magnitude = value < 0 ? 0 &- value : value
        return 32 &- magnitude.leadingZeroBitCount
    }

    /// Adds the symbols of MCU rows `mcuRows` to `counts`: 4 x 256 counts, DC table 0, AC table 0,
    /// DC table 1, AC table 1.
    func countSymbols(mcuRows: Range<Int>, into counts: UnsafeMutablePointer<Int>) {
        forEachBlock(mcuRows: mcuRows) { table, difference, block, acMask in
            let dc = counts + table &* 512, ac = dc + 256
            dc[Self.category(difference)] &+= 1
            var mask = acMask, next = 1
            while mask != 0 {
                let k = mask.trailingZeroBitCount
                var run = k &- next
                while run > 15 {
                    ac[0xF0] &+= 1
                    run &-= 16
                }
                ac[run &<< 4 | Self.category(Int32(block[k]))] &+= 1
                next = k &+ 1
                mask &= mask &- 1
            }
            if next != 64 { ac[0] &+= 1 }
        }
    }

    /// Codes MCU rows `mcuRows` into `writer` with `codes` (DC table 0, AC table 0, DC table 1,
    /// AC table 1; each 256 `code << 8 | length` entries).
    func encode(mcuRows: Range<Int>, codes: UnsafePointer<UInt32>, into writer: inout JPEGBitWriter) {
        forEachBlock(mcuRows: mcuRows) { table, difference, block, acMask in
            // Room for one block: at most 16 + 11 bits of DC and 63 x (16 + 10) of AC, 27 words.
            writer.reserve(27)
            let dc = codes + table &* 512, ac = dc + 256
            @inline(__always) func put(_ entry: UInt32, _ value: Int32, _ size: Int) {
                let bits = UInt64(entry &>> 8) &<< UInt64(size) | UInt64(truncatingIfNeeded: value) & ((1 &<< UInt64(size)) &- 1)
                writer.write(bits, count: Int(entry & 0xFF) &+ size)
            }
            let dcSize = Self.category(difference)
            put(dc[dcSize], difference < 0 ? difference &- 1 : difference, dcSize)
            var mask = acMask, next = 1
            while mask != 0 {
                let k = mask.trailingZeroBitCount
                var run = k &- next
                while run > 15 {
                    put(ac[0xF0], 0, 0)
                    run &-= 16
                }
                let value = Int32(block[k])
                let size = Self.category(value)
                put(ac[run &<< 4 | size], value < 0 ? value &- 1 : value, size)
                next = k &+ 1
                mask &= mask &- 1
            }
            if next != 64 { put(ac[0], 0, 0) }
        }
    }
}
