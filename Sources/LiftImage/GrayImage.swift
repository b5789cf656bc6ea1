/// An 8-bit single-channel image: a hard or soft mask, a label preview, or a grey photo.
///
/// Layout: row-major, one byte per pixel, no row padding; `pixels.count == width * height`.
public struct GrayImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Samples, row-major, 0 = black / background, 255 = white / foreground.
    public var pixels: [UInt8]

    /// Wraps existing samples; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0, "GrayImage size must be non-negative")
        precondition(pixels.count == width * height, "GrayImage needs width*height samples")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A new image with every sample set to `value`.
    public init(width: Int, height: Int, value: UInt8 = 0) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: value, count: width * height))
    }
}
