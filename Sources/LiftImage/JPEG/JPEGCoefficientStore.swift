import LiftParallel

/// The pixels an encoder reads: RGBA8 (straight alpha, alpha ignored apart from the opacity check)
/// or 8-bit grey, row-major without padding, `layout.width x layout.height`.
enum JPEGEncoderSource {
    case rgba(UnsafePointer<UInt8>)
    case gray(UnsafePointer<UInt8>)
}

/// Every block of an image, forward-transformed and quantised: per component, `blocksPerLine x
/// blockRows` blocks of 64 `Int16` coefficients in zigzag order, row-major, and one `UInt64` per block
/// whose bit `k` says whether zigzag coefficient `k` is non-zero. Both entropy passes (symbol counts,
/// then codes) read it, which is why the whole image is kept: about 3 bytes a pixel for 4:2:0, 6 for
/// 4:4:4, 2 for grey.
final class JPEGCoefficientStore: @unchecked Sendable {
    let layout: JPEGEncodingLayout
    /// Per component: the coefficients, `64 * blocksPerLine * blockRows`.
    let coefficients: [UnsafeMutablePointer<Int16>]
    /// Per component: the non-zero masks, `blocksPerLine * blockRows`.
    let masks: [UnsafeMutablePointer<UInt64>]

    init(layout: JPEGEncodingLayout) {
        self.layout = layout
        coefficients = layout.components.map { .allocate(capacity: 64 * $0.blocksPerLine * $0.blockRows) }
        masks = layout.components.map { .allocate(capacity: $0.blocksPerLine * $0.blockRows) }
    }

    deinit {
        for pointer in coefficients { pointer.deallocate() }
        for pointer in masks { pointer.deallocate() }
    }

    /// Converts, subsamples, transforms and quantises `source` into the store, one MCU row at a
    /// time, rows shared out over `threads` (each block is computed the same way on any thread).
    /// - Parameter divisors: per table (0 luminance, 1 chrominance), the 192 packed divisors.
    /// - Returns: false when an RGBA source has a pixel whose alpha is not 255 (the store is then
    ///   incomplete).
    func fill(from source: JPEGEncoderSource, divisors: [[UInt32]], threads: Int) -> Bool {
        let layout = layout, rows = layout.mcuRows
        let opaque = UnsafeMutableBufferPointer<Bool>.allocate(capacity: rows)
        opaque.initialize(repeating: true)
        defer { opaque.deallocate() }
        JPEGZigzag.natural.withUnsafeBufferPointer { zigzag in
            let packed = divisors.map { table in
                let pointer = UnsafeMutablePointer<UInt32>.allocate(capacity: 192)
                pointer.initialize(from: table, count: 192)
                return UnsafeRawPointer(pointer)
            }
            defer { for pointer in packed { pointer.deallocate() } }
            Parallel.forEach(count: rows, threads: threads, minimumPerPart: 2) { range in
                let band = JPEGSampleBand(layout: layout)
                defer { band.deallocate() }
                let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
                defer { scratch.deallocate() }
                for row in range {
                    opaque[row] = band.load(mcuRow: row, from: source)
                    transform(band: band, mcuRow: row, divisors: packed, zigzag: zigzag.baseAddress.unsafelyUnwrapped,
                              scratch: scratch)
                }
            }
        }
        return !opaque.contains(false)
    }

    /// Transforms the real blocks of MCU row `mcuRow` from the band's sample planes.
    private func transform(band: JPEGSampleBand, mcuRow: Int, divisors: [UnsafeRawPointer], zigzag: UnsafePointer<UInt8>,
                           scratch: UnsafeMutablePointer<Int16>) {
        for (index, component) in layout.components.enumerated() {
            let plane = band.planes[index], stride = band.strides[index], divisor = divisors[component.table]
            let firstRow = mcuRow &* component.v
            for blockRow in firstRow ..< min(firstRow &+ component.v, component.blockRows) {
                let samples = plane + (blockRow &- firstRow) &* 8 &* stride
                let blockBase = blockRow &* component.blocksPerLine
                for x in 0 ..< component.blocksPerLine {
                    let block = blockBase &+ x
                    masks[index][block] = JPEGForwardDCT.block(samples + x &* 8, stride: stride, divisors: divisor, zigzag: zigzag,
                                                               scratch: scratch, output: coefficients[index] + block &* 64)
                }
            }
        }
    }
}

/// One MCU row's samples per component, padded to whole blocks by repeating the last column and
/// the last row as libjpeg's `expand_right_edge` and `expand_bottom_edge` do. Per-thread scratch.
struct JPEGSampleBand {
    let layout: JPEGEncodingLayout
    /// Per component: `8 * v` rows of `strides[i]` samples.
    let planes: [UnsafeMutablePointer<UInt8>]
    let strides: [Int]
    /// Full-resolution Cb and Cr rows for 4:2:0 before averaging (empty otherwise).
    private let fullChroma: [UnsafeMutablePointer<UInt8>]

    init(layout: JPEGEncodingLayout) {
        self.layout = layout
        let fullRows = 8 * layout.maxV, padded = layout.paddedWidth
        strides = layout.components.map { padded * $0.h / layout.maxH }
        planes = layout.components.indices.map { .allocate(capacity: (padded * layout.components[$0].h / layout.maxH) * 8 * layout.components[$0].v) }
        fullChroma = layout.components.count == 3 && layout.maxH > 1 ? [.allocate(capacity: padded * fullRows), .allocate(capacity: padded * fullRows)] : []
    }

    func deallocate() {
        for pointer in planes + fullChroma { pointer.deallocate() }
    }

    /// Fills the planes with MCU row `mcuRow` of `source`.
    /// - Returns: false when an RGBA pixel of these rows is not fully opaque.
    func load(mcuRow: Int, from source: JPEGEncoderSource) -> Bool {
        let width = layout.width, padded = layout.paddedWidth, fullRows = 8 &* layout.maxV
        let firstY = mcuRow &* fullRows
        var alpha: UInt8 = 255
        for r in 0 ..< fullRows {
            let y = min(firstY &+ r, layout.height &- 1)
            switch source {
            case .gray(let pixels):
                let row = planes[0] + r &* strides[0]
                row.update(from: pixels + y &* width, count: width)
                JPEGEncoderSampling.padRow(row, count: width, paddedCount: padded)
            case .rgba(let pixels):
                let chroma = fullChroma.isEmpty ? (planes[1], planes[2]) : (fullChroma[0], fullChroma[1])
                let rows = (planes[0] + r &* padded, chroma.0 + r &* padded, chroma.1 + r &* padded)
                alpha &= JPEGEncoderSampling.convertRow(pixels + y &* width &* 4, count: width, y: rows.0, cb: rows.1, cr: rows.2)
                JPEGEncoderSampling.padRow(rows.0, count: width, paddedCount: padded)
                JPEGEncoderSampling.padRow(rows.1, count: width, paddedCount: padded)
                JPEGEncoderSampling.padRow(rows.2, count: width, paddedCount: padded)
            }
        }
        if !fullChroma.isEmpty { downsample(mcuRow: mcuRow) }
        return alpha == 255
    }

    /// Averages the full-resolution chroma rows 2x2 into planes 1 and 2. Chroma rows past the image
    /// repeat its last chroma row (libjpeg pads after downsampling, so they are not averages of
    /// repeated pixel rows).
    private func downsample(mcuRow: Int) {
        let padded = layout.paddedWidth, stride = strides[1]
        let imageChromaRows = (layout.height + 1) / 2
        let valid = min(8, imageChromaRows &- mcuRow &* 8)
        for (full, plane) in zip(fullChroma, planes[1...]) {
            for r in 0 ..< valid {
                JPEGEncoderSampling.downsampleRow(top: full + 2 &* r &* padded, bottom: full + (2 &* r &+ 1) &* padded,
                                                  output: plane + r &* stride, count: stride)
            }
            for r in valid ..< 8 { (plane + r &* stride).update(from: plane + (valid &- 1) &* stride, count: stride) }
        }
    }
}
