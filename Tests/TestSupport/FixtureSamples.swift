import Foundation
import LiftImage

extension Fixtures {
    /// Little-endian Float32 samples of a fixture file (a trailing partial sample is ignored).
    public static func float32s(_ relativePath: String) throws -> [Float] {
        littleEndianFloat32s(try bytes(relativePath))
    }

    /// Little-endian Float32 samples of the file at `url` (for generated files outside `Tests/Fixtures/`).
    public static func float32s(contentsOf url: URL) throws -> [Float] {
        littleEndianFloat32s([UInt8](try Data(contentsOf: url)))
    }

    /// An opaque RGBA image from a committed raw 8-bit RGB fixture of `width`×`height` pixels.
    public static func opaqueImage(rgb relativePath: String, width: Int, height: Int) throws -> RGBAImage {
        let rgb = try bytes(relativePath)
        precondition(rgb.count == width * height * 3, "\(relativePath) is \(rgb.count) bytes, not \(width)x\(height) RGB")
        return opaqueImage(rgb: rgb, width: width, height: height)
    }

    /// Two copies of the astronaut fixture side by side, 512×256 opaque RGBA: a photo with two
    /// separate subjects.
    public static func twoAstronauts() throws -> RGBAImage {
        let one = try opaqueImage(rgb: "person/astronaut.rgb", width: 256, height: 256)
        var pixels: [UInt8] = []
        for row in 0..<one.height {
            let line = one.pixels[row * one.width * 4 ..< (row + 1) * one.width * 4]
            pixels += line
            pixels += line
        }
        return RGBAImage(width: 2 * one.width, height: one.height, pixels: pixels)
    }

    /// An opaque RGBA image from interleaved 8-bit RGB samples, `width * height * 3` of them.
    public static func opaqueImage(rgb: [UInt8], width: Int, height: Int) -> RGBAImage {
        precondition(rgb.count >= width * height * 3, "\(rgb.count) RGB samples are too few for \(width)x\(height)")
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for pixel in 0 ..< width * height {
            for channel in 0 ..< 3 { rgba[pixel * 4 + channel] = rgb[pixel * 3 + channel] }
        }
        return RGBAImage(width: width, height: height, pixels: rgba)
    }

    /// Decodes consecutive little-endian Float32 values.
    private static func littleEndianFloat32s(_ bytes: [UInt8]) -> [Float] {
        stride(from: 0, to: bytes.count - 3, by: 4).map { i in
            Float(bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
        }
    }
}
