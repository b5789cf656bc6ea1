/// One pass of a PNG image's scanlines: the whole image, or one of Adam7's seven sub-images.
///
/// Pixel (i, j) of the pass lands at image pixel (x0 + i * dx, y0 + j * dy).
struct PNGPass: Equatable {
    /// Index of the pass (0 for a non-interlaced image, 0...6 for Adam7).
    let index: Int
    let x0: Int, y0: Int, dx: Int, dy: Int
    /// Size of the pass in pixels (either may be 0 for Adam7 passes of small images, which are skipped).
    let width: Int, height: Int

    /// Adam7's starting offsets and steps, pass by pass.
    private static let adam7: [(x0: Int, y0: Int, dx: Int, dy: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// The non-empty passes of an image, in file order.
    static func passes(for header: PNGHeader) -> [PNGPass] {
        passes(width: header.width, height: header.height, interlaced: header.interlaced)
    }

    /// The non-empty passes of a `width` x `height` image.
    static func passes(width: Int, height: Int, interlaced: Bool) -> [PNGPass] {
        guard interlaced else { return [PNGPass(index: 0, x0: 0, y0: 0, dx: 1, dy: 1, width: width, height: height)] }
        return adam7.enumerated().compactMap { index, p in
            let w = width > p.x0 ? (width - p.x0 + p.dx - 1) / p.dx : 0
            let h = height > p.y0 ? (height - p.y0 + p.dy - 1) / p.dy : 0
            return w > 0 && h > 0 ? PNGPass(index: index, x0: p.x0, y0: p.y0, dx: p.dx, dy: p.dy, width: w, height: h) : nil
        }
    }
}
