import Foundation
import Lift
import TestSupport

/// Small photos for the end-to-end tests, made at run time from committed fixtures, and a check for
/// whether any model weights exist.
enum SamplePhotos {
    /// Whether some model's weights can be found the way the binary looks for them (`ModelCatalog`:
    /// `$LIFT_WEIGHTS`, else a `Weights/` above the executable or in this checkout); the cut-out
    /// tests need them.
    static let weightsAvailable: Bool = [ModelName.person, .subject].contains { (try? ModelCatalog.url(for: $0)) != nil }

    /// The reason printed when the model-dependent tests are skipped.
    static let noWeights = "no model weights (Weights/person.safetensors or subject.safetensors, or $LIFT_WEIGHTS): cut-out tests skipped"

    /// scikit-image's `astronaut` (a person), 256×256, as PNG.
    static func astronaut() throws -> [UInt8] { try png("person/astronaut.rgb", width: 256, height: 256) }

    /// The astronaut stretched to 256×144 (wide: the person model's landscape variant runs), as PNG.
    static func astronautWide() throws -> [UInt8] { try png("person/astronaut-wide.rgb", width: 256, height: 144) }

    /// Two astronauts side by side, 512×256 (two separate subjects), as PNG.
    static func twoAstronauts() throws -> [UInt8] {
        let one = try Fixtures.opaqueImage(rgb: "person/astronaut.rgb", width: 256, height: 256)
        let rowBytes = one.width * 4
        var pixels: [UInt8] = []
        pixels.reserveCapacity(2 * one.pixels.count)
        for row in 0..<one.height {
            let line = one.pixels[row * rowBytes ..< (row + 1) * rowBytes]
            pixels += line
            pixels += line
        }
        return try PNGEncoder.encode(RGBAImage(width: 2 * one.width, height: one.height, pixels: pixels))
    }

    /// A flat grey 64×64 image: nothing to find, as PNG.
    static func flatGrey() throws -> [UInt8] {
        try PNGEncoder.encode(RGBAImage(width: 64, height: 64, fill: (128, 128, 128, 255)))
    }

    /// A synthetic pattern without a person, 256×256, as PNG.
    static func pattern() throws -> [UInt8] { try png("person/pattern.rgb", width: 256, height: 256) }

    /// A committed 8-bit RGB fixture as an opaque RGBA PNG.
    private static func png(_ fixture: String, width: Int, height: Int) throws -> [UInt8] {
        try PNGEncoder.encode(try Fixtures.opaqueImage(rgb: fixture, width: width, height: height))
    }

    /// Decodes a PNG the binary wrote.
    static func decode(_ bytes: [UInt8]) throws -> RGBAImage { try PNGDecoder.decode(bytes).image }

    /// Decodes the PNG file at `path`.
    static func decodeFile(_ path: String) throws -> RGBAImage {
        try decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
