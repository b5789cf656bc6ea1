/// The `ALPH` chunk of a lossy image (RFC 9649 §2.7.1.2): a header byte (2 reserved bits that must
/// be 0, 2 pre-processing bits, 2 filtering bits, 2 compression bits), then the alpha plane, raw or
/// as a lossless image stream whose green channel holds it, filtered by one of three predictors.
///
/// Pre-processing (level reduction) needs nothing at decode time; libwebp ignores it unless asked
/// to dither, and so does this decoder.
enum WebPAlpha {
    /// Decodes the alpha plane of a `width × height` image from an `ALPH` payload into the alpha
    /// bytes of `rgba`.
    /// - Throws: `.invalidAlpha` for a bad header or a raw plane shorter than the image; the lossless
    ///   decoder's errors for a compressed plane.
    static func decode(_ data: UnsafeBufferPointer<UInt8>, width: Int, height: Int, limits: DecodingLimits,
                       into rgba: inout [UInt8]) throws(WebPError) {
        guard data.count > 1 else { throw .invalidAlpha(reason: "the chunk is \(data.count) bytes, with no data after its header") }
        let header = data[0]
        let compression = Int(header & 3), filter = Int(header >> 2) & 3, preprocessing = Int(header >> 4) & 3
        guard header >> 6 == 0 else { throw .invalidAlpha(reason: "the reserved header bits are \(header >> 6), not 0") }
        guard compression <= 1 else { throw .invalidAlpha(reason: "compression method \(compression) is not 0 (none) or 1 (lossless)") }
        guard preprocessing <= 1 else { throw .invalidAlpha(reason: "pre-processing method \(preprocessing) is not 0 or 1") }
        let body = UnsafeBufferPointer(rebasing: data[1...])
        var alpha: [UInt8]
        if compression == 0 {
            guard body.count >= width * height else {
                throw .invalidAlpha(reason: "the raw plane is \(body.count) bytes, less than the \(width * height) pixels")
            }
            alpha = Array(body[0 ..< width * height])
        } else {
            var decoder = VP8LDecoder(body, limits: limits)
            alpha = try decoder.decodeImage(width: width, height: height).map { UInt8(truncatingIfNeeded: $0 >> 8) }
        }
        unfilter(&alpha, width: width, height: height, method: filter)
        rgba.withUnsafeMutableBufferPointer { out in
            for i in 0 ..< width * height { out[4 * i + 3] = alpha[i] }
        }
    }

    /// Adds back the predictions of filter `method` (1 horizontal, 2 vertical, 3 gradient), in place.
    /// The first row predicts from the left (0 before the first pixel); the first column of later
    /// rows from above.
    static func unfilter(_ alpha: inout [UInt8], width: Int, height: Int, method: Int) {
        guard method != 0 else { return }
        alpha.withUnsafeMutableBufferPointer { a in
            for x in 1 ..< width { a[x] &+= a[x - 1] }
            for y in 1 ..< height {
                let row = y * width, above = row - width
                a[row] &+= a[above]
                switch method {
                case 1:
                    for x in 1 ..< width { a[row + x] &+= a[row + x - 1] }
                case 2:
                    for x in 1 ..< width { a[row + x] &+= a[above + x] }
                default:
                    for x in 1 ..< width {
                        let gradient = Int(a[row + x - 1]) + Int(a[above + x]) - Int(a[above + x - 1])
                        a[row + x] &+= UInt8(min(max(gradient, 0), 255))
                    }
                }
            }
        }
    }
}
