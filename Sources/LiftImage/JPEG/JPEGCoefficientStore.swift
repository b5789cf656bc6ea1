import LiftParallel

/// Every block of an image, forward-transformed and quantised, packed in scan order so that both
/// entropy passes (symbol counts, then codes) read it front to back. Per MCU row: for each MCU, for
/// each component, its `h x v` blocks (rows of blocks top to bottom, each left to right), each
/// block a `UInt64` whose bit `k` says zigzag coefficient `k` is not zero, followed by those
/// coefficients as `Int16`s in zigzag order. Blocks of an MCU that lie past a component's last
/// real block are libjpeg's dummy blocks: the DC of the block written before them, no AC.
///
/// Each MCU row has room for its worst case (8 + 128 bytes a block), but only the pages it writes
/// are touched, and most coefficients are zero: the 12 MP photo of `Benchmarks/jpeg_encode_peer.py`
/// takes 0.5 (q75, 4:2:0) to 1.3 (q90, 4:4:4) bytes a pixel, where 64 coefficients a block would
/// take 3 (4:2:0) or 6 (4:4:4).
final class JPEGCoefficientStore: @unchecked Sendable {
    let layout: JPEGEncodingLayout
    /// Per MCU row, its packed blocks (allocated by `fill`).
    private let rows: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Per MCU row, each component's DC after its last block in scan order (the DC predictors
    /// the next row starts from).
    private let lastDC: UnsafeMutablePointer<SIMD4<Int32>>
    /// Blocks in one MCU, all components together.
    let blocksPerMCU: Int

    init(layout: JPEGEncodingLayout) {
        self.layout = layout
        rows = .allocate(capacity: layout.mcuRows)
        rows.initialize(repeating: nil, count: layout.mcuRows)
        lastDC = .allocate(capacity: layout.mcuRows)
        lastDC.initialize(repeating: SIMD4(), count: layout.mcuRows)
        blocksPerMCU = layout.components.reduce(0) { $0 + $1.h * $1.v }
    }

    deinit {
        for row in 0 ..< layout.mcuRows { rows[row]?.deallocate() }
        rows.deallocate()
        lastDC.deallocate()
    }

    /// Converts, subsamples, transforms and quantises `source` into the store, one MCU row at a
    /// time, rows shared out over `threads` (each block is computed the same way on any thread).
    /// - Parameter divisors: per table (0 luminance, 1 chrominance), the 192 packed divisors.
    /// - Returns: false when an RGBA source has a pixel whose alpha is not 255.
    func fill(from source: JPEGEncoderSource, divisors: [[UInt32]], threads: Int) -> Bool {
        let layout = layout, rowCount = layout.mcuRows
        let opaque = UnsafeMutableBufferPointer<Bool>.allocate(capacity: rowCount)
        opaque.initialize(repeating: true)
        defer { opaque.deallocate() }
        let rowBytes = layout.mcusPerLine * blocksPerMCU * (8 + 128)
        JPEGZigzag.natural.withUnsafeBufferPointer { zigzag in
            let packed = divisors.map { table in
                let pointer = UnsafeMutablePointer<UInt32>.allocate(capacity: 192)
                pointer.initialize(from: table, count: 192)
                return UnsafeRawPointer(pointer)
            }
            defer { for pointer in packed { pointer.deallocate() } }
            Parallel.forEach(count: rowCount, threads: threads, minimumPerPart: 2) { range in
                let band = JPEGSampleBand(layout: layout)
                defer { band.deallocate() }
                let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
                defer { scratch.deallocate() }
                for row in range {
                    opaque[row] = band.load(mcuRow: row, from: source)
                    let output = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 8)
                    rows[row] = output
                    lastDC[row] = transform(band: band, mcuRow: row, divisors: packed, zigzag: zigzag.baseAddress.unsafelyUnwrapped,
                                            scratch: scratch, into: output)
                }
            }
        }
        return !opaque.contains(false)
    }

    /// Transforms MCU row `mcuRow` from the band's sample planes and packs its blocks at `output`.
    /// - Returns: each component's DC after the row.
    private func transform(band: JPEGSampleBand, mcuRow: Int, divisors: [UnsafeRawPointer], zigzag: UnsafePointer<UInt8>,
                           scratch: UnsafeMutablePointer<Int16>, into output: UnsafeMutableRawPointer) -> SIMD4<Int32> {
        var cursor = output
        var dc = SIMD4<Int32>()
        for mx in 0 ..< layout.mcusPerLine {
            for (index, component) in layout.components.enumerated() {
                let plane = band.planes[index], stride = band.strides[index], divisor = divisors[component.table]
                for yy in 0 ..< component.v {
                    for xx in 0 ..< component.h {
                        let bx = mx &* component.h &+ xx
                        guard bx < component.blocksPerLine, mcuRow &* component.v &+ yy < component.blockRows else {
                            // A dummy block repeats the DC of the block before it (the MCU's first block is always real).
                            let value = Int16(truncatingIfNeeded: dc[index])
                            let hasDC: UInt64 = value != 0 ? 1 : 0
                            cursor.storeBytes(of: hasDC, as: UInt64.self)
                            cursor.storeBytes(of: value, toByteOffset: 8, as: Int16.self)
                            cursor += 8 &+ Int(hasDC) &* 2
                            continue
                        }
                        let offset: Int = yy &* 8 &* stride &+ bx &* 8
                        let samples = plane + offset
                        let mask = JPEGForwardDCT.block(samples, stride: stride, divisors: divisor, zigzag: zigzag, output: scratch)
                        dc[index] = Int32(scratch[0])
                        cursor.storeBytes(of: mask, as: UInt64.self)
                        cursor += 8
                        var bits = mask
                        while bits != 0 {
                            cursor.storeBytes(of: scratch[Int(zigzag[bits.trailingZeroBitCount])], as: Int16.self)
                            cursor += 2
                            bits &= bits &- 1
                        }
                    }
                }
            }
        }
        return dc
    }

    /// Calls `body` for every block of MCU rows `mcuRows` in scan order with the block's table index,
    /// its DC difference, its non-zero AC coefficients (zigzag order, as `Int16`s) and their mask.
    @inline(__always)
    func forEachBlock(mcuRows: Range<Int>,
                      _ body: (_ table: Int, _ dcDifference: Int32, _ acValues: UnsafeRawPointer, _ acMask: UInt64) -> Void) {
        let components = layout.components, mcusPerLine = layout.mcusPerLine
        var predictors = mcuRows.lowerBound > 0 ? lastDC[mcuRows.lowerBound &- 1] : SIMD4<Int32>()
        for row in mcuRows {
            guard var cursor = rows[row].map(UnsafeRawPointer.init) else { preconditionFailure("MCU row \(row) was not filled") }
            for _ in 0 ..< mcusPerLine {
                for (index, component) in components.enumerated() {
                    for _ in 0 ..< component.h &* component.v {
                        let mask = cursor.loadUnaligned(as: UInt64.self)
                        let hasDC = Int(mask & 1)
                        let dc = hasDC != 0 ? Int32(cursor.load(fromByteOffset: 8, as: Int16.self)) : 0
                        body(component.table, dc &- predictors[index], cursor + (8 &+ hasDC &* 2), mask & ~1)
                        predictors[index] = dc
                        cursor += 8 &+ mask.nonzeroBitCount &* 2
                    }
                }
            }
        }
    }
}
