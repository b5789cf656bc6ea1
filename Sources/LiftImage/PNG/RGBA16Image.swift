/// A 16-bit-per-sample RGBA image with straight alpha, as decoded from a PNG without losing precision.
///
/// Layout: row-major, interleaved `R G B A`, host-endian `UInt16`, no row padding;
/// `pixels.count == width * height * 4`. Samples span 0...65535 whatever the file's bit depth.
public struct RGBA16Image: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Interleaved RGBA samples, row-major, 4 per pixel.
    public var pixels: [UInt16]

    /// Wraps existing samples; `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt16]) {
        precondition(width >= 0 && height >= 0, "RGBA16Image size must be non-negative")
        precondition(pixels.count == width * height * 4, "RGBA16Image needs width*height*4 samples")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}
