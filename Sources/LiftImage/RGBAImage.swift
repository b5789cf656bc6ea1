/// An 8-bit RGBA image with straight (non-premultiplied) alpha.
///
/// Layout: row-major, interleaved `R G B A`, no row padding; `pixels.count == width * height * 4`.
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Interleaved RGBA samples, row-major, 4 bytes per pixel.
    public var pixels: [UInt8]

    /// Wraps existing RGBA samples; `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0, "RGBAImage size must be non-negative")
        precondition(pixels.count == width * height * 4, "RGBAImage needs width*height*4 samples")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A new image filled with one colour (default: transparent black).
    public init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (0, 0, 0, 0)) {
        precondition(width >= 0 && height >= 0, "RGBAImage size must be non-negative")
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        if fill != (0, 0, 0, 0) {
            for i in stride(from: 0, to: pixels.count, by: 4) {
                pixels[i] = fill.r; pixels[i + 1] = fill.g; pixels[i + 2] = fill.b; pixels[i + 3] = fill.a
            }
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// Number of pixels (`width * height`).
    public var pixelCount: Int { width * height }

    /// True when every alpha sample is 255.
    public var isOpaque: Bool {
        var i = 3
        while i < pixels.count {
            if pixels[i] != 255 { return false }
            i += 4
        }
        return true
    }
}
