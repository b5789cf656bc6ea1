/// Why an image could not be encoded as JPEG. Each case carries the values that were refused.
public enum JPEGEncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The image has no pixels (a zero width or height).
    case emptyImage(width: Int, height: Int)
    /// A side is longer than `maximum` pixels (`JPEGEncoder.maximumDimension`, libjpeg's limit).
    case imageTooLarge(width: Int, height: Int, maximum: Int)
    /// The quality is outside 1...100.
    case qualityOutOfRange(Int)
    /// An RGBA image has a pixel that is not fully opaque; JPEG has no alpha, so the caller decides
    /// what the transparent parts become (a background colour, a matte) before encoding. Carries the
    /// first such pixel in row order.
    case transparentPixel(x: Int, y: Int, alpha: UInt8)
    /// The ICC profile needs more than 255 APP2 chunks of 65519 bytes.
    case iccProfileTooLarge(bytes: Int, maximum: Int)

    public var description: String {
        switch self {
        case let .emptyImage(width, height):
            return "cannot encode a \(width)x\(height) image as JPEG: it has no pixels"
        case let .imageTooLarge(width, height, maximum):
            return "cannot encode a \(width)x\(height) image as JPEG: a side is longer than \(maximum) pixels, the most JPEG readers accept"
        case let .qualityOutOfRange(quality):
            return "JPEG quality \(quality) is outside 1...100"
        case let .transparentPixel(x, y, alpha):
            return "cannot encode as JPEG: pixel (\(x), \(y)) has alpha \(alpha), and JPEG has no transparency; "
                + "put the image on a background first"
        case let .iccProfileTooLarge(bytes, maximum):
            return "the ICC profile is \(bytes) bytes, more than the \(maximum) bytes a JPEG can carry (255 APP2 chunks)"
        }
    }
}
