/// The block geometry of an image the encoder writes, computed as libjpeg's `initial_setup` and
/// `per_scan_setup` do: one luminance component (grey) or Y, Cb, Cr with Y sampled `h x v` times
/// as densely as the chroma components (2x2 for 4:2:0, 1x1 for 4:4:4), all in one interleaved scan.
struct JPEGEncodingLayout {
    /// One component's sampling and extent.
    struct Component {
        /// Horizontal and vertical sampling factors (blocks per MCU across and down).
        let h: Int
        let v: Int
        /// Blocks that hold image samples across and down: `ceil(width * h / (maxH * 8))`, and the
        /// same for the height. An MCU that reaches past them gets dummy blocks, as in libjpeg.
        let blocksPerLine: Int
        let blockRows: Int
        /// Quantisation and Huffman table index: 0 for luminance, 1 for chrominance.
        let table: Int
    }

    /// Image size in pixels.
    let width: Int
    let height: Int
    let components: [Component]
    /// The largest sampling factors (those of Y).
    let maxH: Int
    let maxV: Int

    /// - Parameters:
    ///   - width, height: the image size in pixels, each at least 1.
    ///   - color: three components (Y, Cb, Cr) rather than one (grey).
    ///   - subsample: Y at 2x2 the chroma resolution (4:2:0); ignored for grey.
    init(width: Int, height: Int, color: Bool, subsample: Bool) {
        precondition(width >= 1 && height >= 1, "an image to encode has pixels")
        self.width = width
        self.height = height
        let luma = color && subsample ? 2 : 1
        maxH = luma
        maxV = luma
        let factors = color ? [(luma, 0), (1, 1), (1, 1)] : [(1, 0)]
        components = factors.map { factor, table in
            Component(h: factor, v: factor, blocksPerLine: (width * factor + luma * 8 - 1) / (luma * 8),
                      blockRows: (height * factor + luma * 8 - 1) / (luma * 8), table: table)
        }
    }

    /// MCUs across a row of MCUs.
    var mcusPerLine: Int { (width + 8 * maxH - 1) / (8 * maxH) }
    /// Rows of MCUs (libjpeg's iMCU rows): each covers `8 * maxV` pixel rows.
    var mcuRows: Int { (height + 8 * maxV - 1) / (8 * maxV) }
    /// The width of full-resolution sample rows once padded to whole MCUs.
    var paddedWidth: Int { mcusPerLine * 8 * maxH }
}
