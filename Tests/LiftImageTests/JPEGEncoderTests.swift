import Foundation
import LiftImage
import Testing
import TestSupport

/// One entry of `Tests/Fixtures/jpeg-encoder/manifest.json` (written by
/// Tools/fixtures/make_jpeg_encoder_fixtures.py): Pillow's file for an input and settings.
struct JPEGEncoderCase: Decodable, CustomStringConvertible, Sendable {
    let file: String
    let input: String
    let quality: Int
    let subsampling: String
    let tables: String
    let icc: Bool
    let bytes: Int
    let psnr: Double
    var description: String { file }

    static let all: [JPEGEncoderCase] = {
        guard let bytes = try? Fixtures.bytes("jpeg-encoder/manifest.json"),
              let list = try? JSONDecoder().decode([JPEGEncoderCase].self, from: Data(bytes)) else { return [] }
        return list
    }()

    /// The fixture's made-up ICC profile: byte i is (i * 7 + i / 256) mod 256, 65600 bytes (two chunks).
    static let profile: [UInt8] = (0 ..< 65_600).map { UInt8(($0 * 7 + $0 / 256) % 256) }

    var options: JPEGEncoder.Options {
        JPEGEncoder.Options(quality: quality, subsampling: subsampling == "444" ? .yuv444 : .yuv420,
                            huffmanTables: tables == "standard" ? .standard : .optimized, iccProfile: icc ? Self.profile : nil, threads: 1)
    }
}

/// The green channel of an RGBA image, as the fixture script makes the grey inputs.
private func greenChannel(_ image: RGBAImage) -> GrayImage {
    GrayImage(width: image.width, height: image.height, pixels: (0 ..< image.pixelCount).map { image.pixels[$0 * 4 + 1] })
}

/// PSNR in dB of `decoded` against `original`, both with `channels` interleaved samples per pixel
/// compared (the first `channels` of every `stride`).
private func psnr(_ decoded: [UInt8], _ original: [UInt8], stride: Int, channels: Int) -> Double {
    var squared = 0.0, count = 0
    for p in 0 ..< decoded.count / stride {
        for c in 0 ..< channels {
            let d = Double(decoded[p * stride + c]) - Double(original[p * stride + c])
            squared += d * d
            count += 1
        }
    }
    return squared == 0 ? 99 : 10 * log10(255 * 255 / (squared / Double(count)))
}

/// A seeded photo-like RGBA picture, opaque.
private func picture(width: Int, height: Int, seed: UInt64) -> RGBAImage {
    var generator = SeededGenerator(seed: seed)
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0 ..< height {
        for x in 0 ..< width {
            let base = (y * width + x) * 4
            let noise = Int(generator.next() % 24)
            pixels[base] = UInt8(clamping: 100 + Int(80 * sin(Double(x) / 9)) + noise)
            pixels[base + 1] = UInt8(clamping: 90 + Int(70 * cos(Double(x + y) / 13)) + noise)
            pixels[base + 2] = UInt8(clamping: (x * 255 / max(width - 1, 1) + y) / 2 + noise)
        }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
}

@Test func jpegEncoderCorpusIsPresent() {
    #expect(JPEGEncoderCase.all.count >= 150)
}

/// Lift follows libjpeg-turbo's pipeline step for step, so its file is Pillow's, byte for byte; and
/// Lift's own decoder reads it back as well as Pillow read Pillow's.
@Test(arguments: JPEGEncoderCase.all)
func jpegEncoderMatchesLibjpegTurbo(_ fixture: JPEGEncoderCase) throws {
    let input = try PNGDecoder.decode(try Fixtures.bytes("jpeg-encoder/\(fixture.input)")).image
    let expected = try Fixtures.bytes("jpeg-encoder/\(fixture.file)")
    let gray = fixture.subsampling == "gray"
    let encoded = gray ? try JPEGEncoder.encode(greenChannel(input), options: fixture.options)
                       : try JPEGEncoder.encode(input, options: fixture.options)
    #expect(encoded.count == fixture.bytes)
    #expect(encoded == expected, "\(fixture.file): \(encoded.count) bytes, Pillow's \(expected.count)")

    let decoded = try JPEGDecoder.decode(encoded)
    #expect(decoded.image.width == input.width && decoded.image.height == input.height)
    #expect(decoded.iccProfile == (fixture.icc ? JPEGEncoderCase.profile : nil))
    let original = gray ? greenChannel(input).pixels.flatMap { v -> [UInt8] in [v, v, v, 255] } : input.pixels
    let quality = psnr(decoded.image.pixels, original, stride: 4, channels: gray ? 1 : 3)
    #expect(quality >= fixture.psnr - 0.3, "\(fixture.file): PSNR \(quality) dB, Pillow's \(fixture.psnr) dB")
}

/// The transform runs in MCU rows and the entropy coding in parts of MCU rows on several threads,
/// joined bit-exactly: the file must not depend on the thread count (700 rows make 44 MCU rows at
/// 4:2:0, enough for five parts; 1000 columns exercise the row padding of the last MCU).
@Test(arguments: [JPEGEncoder.Subsampling.yuv420, .yuv444])
func jpegEncoderFileDoesNotDependOnTheThreadCount(_ subsampling: JPEGEncoder.Subsampling) throws {
    let image = picture(width: 1001, height: 700, seed: 3)
    let single = try JPEGEncoder.encode(image, options: .init(subsampling: subsampling, threads: 1))
    for threads in [2, 3, 5] {
        #expect(try JPEGEncoder.encode(image, options: .init(subsampling: subsampling, threads: threads)) == single)
    }
    let gray = greenChannel(image)
    let graySingle = try JPEGEncoder.encode(gray, options: .init(threads: 1))
    #expect(try JPEGEncoder.encode(gray, options: .init(threads: 4)) == graySingle)
    #expect(try JPEGDecoder.decode(single).image.width == 1001)
}

@Test func jpegEncoderDefaultsAreQuality90And420WithOptimisedTables() throws {
    let options = JPEGEncoder.Options()
    #expect(options.quality == 90 && options.subsampling == .yuv420 && options.huffmanTables == .optimized)
    let image = picture(width: 40, height: 24, seed: 9)
    let decoded = try JPEGDecoder.decode(try JPEGEncoder.encode(image))
    #expect(decoded.info.process == .baseline)
    #expect(decoded.info.components.map(\.horizontalSampling) == [2, 1, 1])
}

/// A profile over 255 chunks does not fit; one of exactly 255 full chunks does, and Lift's decoder
/// puts its chunks back together.
@Test func jpegEncoderSplitsLargeProfilesIntoChunks() throws {
    let image = picture(width: 3, height: 2, seed: 1)
    let tooLarge = [UInt8](repeating: 7, count: 255 * 65_519 + 1)
    #expect(throws: JPEGEncodingError.iccProfileTooLarge(bytes: tooLarge.count, maximum: 255 * 65_519)) {
        try JPEGEncoder.encode(image, options: .init(iccProfile: tooLarge))
    }
    let profile = (0 ..< 3 * 65_519 - 5).map { UInt8(truncatingIfNeeded: $0 / 3) }
    let decoded = try JPEGDecoder.decode(try JPEGEncoder.encode(image, options: .init(iccProfile: profile)))
    #expect(decoded.iccProfile == profile)
    #expect(try JPEGDecoder.decode(try JPEGEncoder.encode(image, options: .init(iccProfile: []))).iccProfile == nil)
}

@Test func jpegEncoderRefusesWhatItCannotWrite() throws {
    var image = picture(width: 5, height: 4, seed: 2)
    image.pixels[(2 * 5 + 3) * 4 + 3] = 254
    image.pixels[(3 * 5 + 1) * 4 + 3] = 0
    #expect(throws: JPEGEncodingError.transparentPixel(x: 3, y: 2, alpha: 254)) { try JPEGEncoder.encode(image) }
    let opaque = picture(width: 5, height: 4, seed: 2)
    for quality in [0, 101, -5] {
        #expect(throws: JPEGEncodingError.qualityOutOfRange(quality)) { try JPEGEncoder.encode(opaque, options: .init(quality: quality)) }
    }
    #expect(throws: JPEGEncodingError.emptyImage(width: 0, height: 3)) { try JPEGEncoder.encode(RGBAImage(width: 0, height: 3)) }
    #expect(throws: JPEGEncodingError.emptyImage(width: 4, height: 0)) { try JPEGEncoder.encode(GrayImage(width: 4, height: 0)) }
    #expect(throws: JPEGEncodingError.imageTooLarge(width: 65_501, height: 1, maximum: 65_500)) {
        try JPEGEncoder.encode(GrayImage(width: 65_501, height: 1))
    }
    #expect(JPEGEncodingError.transparentPixel(x: 3, y: 2, alpha: 254).description
        == "cannot encode as JPEG: pixel (3, 2) has alpha 254, and JPEG has no transparency; put the image on a background first")
}

/// The widest image JPEG allows: one MCU row of 4094 MCUs, padded at the right.
@Test func jpegEncoderWritesTheLargestWidth() throws {
    let gray = GrayImage(width: 65_500, height: 2, pixels: (0 ..< 131_000).map { UInt8(truncatingIfNeeded: $0 / 7) })
    let decoded = try JPEGDecoder.decode(try JPEGEncoder.encode(gray, options: .init(quality: 100)))
    #expect(decoded.image.width == 65_500 && decoded.image.height == 2)
    let original = gray.pixels.flatMap { v -> [UInt8] in [v, v, v, 255] }
    #expect(psnr(decoded.image.pixels, original, stride: 4, channels: 1) > 45)
}

@Test func imageIOWritesJPEGAtomically() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let image = picture(width: 9, height: 7, seed: 4)
    try ImageIO.writeJPEG(image, to: scratch.path("out.jpg"), options: .init(quality: 75))
    let written = try Fixtures.bytes(scratch.path("out.jpg"), absolute: true)
    #expect(written == (try JPEGEncoder.encode(image, options: .init(quality: 75))))
    #expect(ImageFormat.sniff(written) == .jpeg)
    try ImageIO.writeJPEG(greenChannel(image), to: scratch.path("mask.jpg"))
    #expect(try ImageIO.decode(try Fixtures.bytes(scratch.path("mask.jpg"), absolute: true)).width == 9)
}
