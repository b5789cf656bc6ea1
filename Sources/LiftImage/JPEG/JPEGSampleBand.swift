/// The pixels an encoder reads: RGBA8 (straight alpha, alpha ignored apart from the opacity check)
/// or 8-bit grey, row-major without padding, `layout.width x layout.height`.
enum JPEGEncoderSource {
    case rgba(UnsafePointer<UInt8>)
    case gray(UnsafePointer<UInt8>)
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
