import Foundation
import LiftImage
import Testing
import TestSupport

/// `image` with the RGB of fully transparent pixels set to 0, as the encoder stores them by default.
private func zeroingTransparentRGB(_ image: RGBAImage) -> RGBAImage {
    var result = image
    for i in stride(from: 0, to: result.pixels.count, by: 4) where result.pixels[i + 3] == 0 {
        result.pixels[i] = 0
        result.pixels[i + 1] = 0
        result.pixels[i + 2] = 0
    }
    return result
}

/// A deterministic RGBA picture: gradients, noise, a soft-edged disc of alpha with transparent
/// surroundings whose RGB is not zero.
private func syntheticCutout(width: Int, height: Int, seed: UInt64 = 1) -> RGBAImage {
    var state = seed
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0 ..< height {
        for x in 0 ..< width {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = Int(state >> 60)
            let i = (y * width + x) * 4
            pixels[i] = UInt8((x * 255 / max(width - 1, 1) + noise) & 0xFF)
            pixels[i + 1] = UInt8((y * 200 / max(height - 1, 1) + 3 * noise) & 0xFF)
            pixels[i + 2] = UInt8((x * y + noise) & 0xFF)
            let dx = Double(x) - Double(width) / 2, dy = Double(y) - Double(height) / 2
            let edge = (dx * dx + dy * dy).squareRoot() - Double(min(width, height)) * 0.35
            pixels[i + 3] = UInt8(max(0, min(255, 128 - 40 * edge)))
        }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
}

/// Images that exercise the encoder: photo-like and cut-out pixels, flat colours, few colours,
/// sizes from 1×1 to widths that are not multiples of the predictor tiles.
private let encoderSamples: [(String, RGBAImage)] = {
    var samples: [(String, RGBAImage)] = []
    for name in ["lossy_200x150", "lossless_noise_alpha", "lossless_palette3", "lossy_alpha_cutout", "lossless_1x1", "lossless_2x3", "lossless_129x3"] {
        if let image = try? WebPDecoder.decode(try Fixtures.bytes("webp/\(name).webp")).image { samples.append((name, image)) }
    }
    samples.append(("cutout 97x61", syntheticCutout(width: 97, height: 61)))
    samples.append(("flat 40x40", RGBAImage(width: 40, height: 40, fill: (10, 200, 30, 255))))
    samples.append(("transparent 33x17", RGBAImage(width: 33, height: 17)))
    samples.append(("cutout 1x70", syntheticCutout(width: 1, height: 70, seed: 5)))
    return samples
}()

@Test func webpEncoderRoundTrips() throws {
    #expect(encoderSamples.count == 11)
    for (name, image) in encoderSamples {
        let encoded = try WebPEncoder.encode(image)
        let decoded = try WebPDecoder.decode(encoded)
        #expect(decoded.info.compression == .lossless, "\(name)")
        #expect(decoded.image == zeroingTransparentRGB(image), "\(name)")
        let exact = try WebPEncoder.encode(image, options: .init(keepTransparentRGB: true))
        #expect(try WebPDecoder.decode(exact).image == image, "\(name) with transparent RGB kept")
    }
}

@Test(arguments: [0, 3, 9])
func webpEncoderEffortsRoundTrip(_ effort: Int) throws {
    let image = syntheticCutout(width: 150, height: 90, seed: 9)
    let encoded = try WebPEncoder.encode(image, options: .init(effort: effort))
    #expect(try WebPDecoder.decode(encoded).image == zeroingTransparentRGB(image))
}

/// The predictor search runs in tile-row bands; the bytes must not depend on the split.
@Test func webpEncoderBytesDoNotDependOnTheThreadCount() throws {
    let image = syntheticCutout(width: 300, height: 200, seed: 3)
    #expect(try WebPEncoder.encode(image, options: .init(threads: 1)) == WebPEncoder.encode(image, options: .init(threads: 3)))
}

@Test func webpEncoderCompressesCutouts() throws {
    // Mostly transparent: far smaller than the 4 bytes per pixel of raw RGBA.
    let image = syntheticCutout(width: 256, height: 256, seed: 2)
    let encoded = try WebPEncoder.encode(image)
    #expect(encoded.count < image.pixels.count / 2)
    // One colour: a literal, then copies of the pixel before.
    let flat = try WebPEncoder.encode(RGBAImage(width: 1000, height: 1000, fill: (1, 2, 3, 255)))
    #expect(flat.count < 1000)  // 245 copies of 4096 pixels, 11 bits each
}

@Test func webpEncoderEmbedsTheICCProfile() throws {
    let image = syntheticCutout(width: 20, height: 10)
    let profile = Array("not a real profile, but bytes to carry".utf8)
    let encoded = try WebPEncoder.encode(image, options: .init(iccProfile: profile))
    let decoded = try WebPDecoder.decode(encoded)
    #expect(decoded.iccProfile == profile)
    #expect(decoded.image == zeroingTransparentRGB(image))
    // Through ImageIO, from a photo's iCCP chunk: a WebP's profile survives decode → encode → decode.
    let photo = try ImageIO.decodePhoto(try Fixtures.bytes("webp/meta_lossy.webp"))
    let written = try ImageIO.encodeWebP(photo.image, color: photo.color)
    let original = try WebPDecoder.decode(try Fixtures.bytes("webp/meta_lossy.webp")).iccProfile
    #expect(try WebPDecoder.decode(written).iccProfile == original)
    #expect(try ImageIO.decode(written) == photo.image)
}

@Test func webpEncoderRefusesUnsupportedSizes() {
    #expect(throws: WebPEncoderError.unsupportedSize(width: 0, height: 5)) {
        try WebPEncoder.encode(RGBAImage(width: 0, height: 5, pixels: []))
    }
    #expect(throws: WebPEncoderError.unsupportedSize(width: 16385, height: 1)) {
        try WebPEncoder.encode(RGBAImage(width: 16385, height: 1))
    }
    #expect(WebPEncoderError.unsupportedSize(width: 16385, height: 1).description.contains("1 to 16384"))
}

@Test func webpEncoderWritesAtomically() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.url.appendingPathComponent("out.webp").path
    let image = syntheticCutout(width: 31, height: 29)
    try ImageIO.writeWebP(image, to: path)
    #expect(try ImageIO.read(contentsOf: path) == zeroingTransparentRGB(image))
}
