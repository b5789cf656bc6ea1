import Foundation
import LiftImage
import Testing
import TestSupport

/// One entry of `Tests/Fixtures/jpeg/manifest.json` (written by Tools/fixtures/make_jpeg_fixtures.py).
struct JPEGFixture: Decodable, CustomStringConvertible, Sendable {
    let name: String
    let width: Int
    let height: Int
    let process: String
    let sampling: String
    let orientation: Int?
    let icc: String?
    var description: String { name }

    static let all: [JPEGFixture] = {
        guard let bytes = try? Fixtures.bytes("jpeg/manifest.json"),
              let list = try? JSONDecoder().decode([JPEGFixture].self, from: Data(bytes)) else { return [] }
        return list
    }()
}

/// How far decoded pixels are from the reference: samples within ±1, and the largest difference.
struct SampleAgreement {
    var samples = 0
    var withinOne = 0
    var maxDifference = 0

    init() {}

    /// Compares RGBA pixels against raw RGB reference samples of the same size.
    init(rgba: [UInt8], rgb: [UInt8]) {
        precondition(rgba.count / 4 == rgb.count / 3, "sizes differ")
        for p in 0 ..< rgb.count / 3 {
            for c in 0 ..< 3 {
                let d = abs(Int(rgba[p * 4 + c]) - Int(rgb[p * 3 + c]))
                if d <= 1 { withinOne += 1 }
                maxDifference = max(maxDifference, d)
            }
        }
        samples = rgb.count
    }

    mutating func add(_ other: SampleAgreement) {
        samples += other.samples
        withinOne += other.withinOne
        maxDifference = max(maxDifference, other.maxDifference)
    }

    var fractionWithinOne: Double { samples == 0 ? 0 : Double(withinOne) / Double(samples) }
}

@Test func jpegCorpusIsPresent() {
    #expect(JPEGFixture.all.count >= 60)
}

@Test(arguments: JPEGFixture.all)
func jpegMatchesLibjpegTurbo(_ fixture: JPEGFixture) throws {
    let decoded = try JPEGDecoder.decode(try Fixtures.bytes("jpeg/\(fixture.name).jpg"))
    #expect(decoded.image.width == fixture.width)
    #expect(decoded.image.height == fixture.height)
    let expected = try Fixtures.bytes("jpeg/\(fixture.name).rgb")
    try #require(expected.count == fixture.width * fixture.height * 3)
    try #require(decoded.image.pixels.count == fixture.width * fixture.height * 4)
    let agreement = SampleAgreement(rgba: decoded.image.pixels, rgb: expected)
    #expect(agreement.fractionWithinOne >= 0.999, "\(fixture.name): \(agreement.fractionWithinOne) within ±1")
    #expect(agreement.maxDifference <= 3, "\(fixture.name): max difference \(agreement.maxDifference)")
    #expect(decoded.image.isOpaque)
    #expect(decoded.info.process.rawValue == fixture.process)
    if let orientation = fixture.orientation {
        #expect(decoded.orientation.rawValue == orientation)
    }
}

/// The stages after entropy decoding run in bands on several threads; the pixels must not depend on
/// the split (the 320×240 and 3×4001 files are split into several bands).
@Test func jpegPixelsDoNotDependOnTheThreadCount() throws {
    for fixture in JPEGFixture.all {
        let bytes = try Fixtures.bytes("jpeg/\(fixture.name).jpg")
        let one = try JPEGDecoder.decode(bytes, options: .init(threads: 1)).image
        let three = try JPEGDecoder.decode(bytes, options: .init(threads: 3)).image
        #expect(one == three, "\(fixture.name)")
    }
}

@Test func jpegWholeCorpusAgreement() throws {
    var total = SampleAgreement()
    var exact = 0
    for fixture in JPEGFixture.all {
        let decoded = try JPEGDecoder.decode(try Fixtures.bytes("jpeg/\(fixture.name).jpg"))
        let expected = try Fixtures.bytes("jpeg/\(fixture.name).rgb")
        let agreement = SampleAgreement(rgba: decoded.image.pixels, rgb: expected)
        if agreement.maxDifference == 0 { exact += 1 }
        total.add(agreement)
    }
    print("JPEG corpus: \(JPEGFixture.all.count) files, \(exact) bit-exact, \(total.samples) samples, "
          + "\(total.fractionWithinOne * 100)% within ±1, max difference \(total.maxDifference)")
    #expect(total.fractionWithinOne >= 0.999)
    #expect(total.maxDifference <= 3)
}

@Test func jpegReportsSamplingAndColorSpace() throws {
    let cases: [(String, JPEGInfo.ColorSpace, [Int])] = [
        ("q75_420", .yCbCr, [2, 2, 1, 1, 1, 1]),
        ("q75_422", .yCbCr, [2, 1, 1, 1, 1, 1]),
        ("opencv_440", .yCbCr, [1, 2, 1, 1, 1, 1]),
        ("opencv_411", .yCbCr, [4, 1, 1, 1, 1, 1]),
        ("gray", .grayscale, [1, 1]),
        ("cmyk", .cmyk, [1, 1, 1, 1, 1, 1, 1, 1]),
        ("rgb_adobe", .rgb, [1, 1, 1, 1, 1, 1]),
        ("ycck", .ycck, [1, 1, 1, 1, 1, 1, 1, 1]),
    ]
    for (name, space, sampling) in cases {
        let info = try JPEGDecoder.decode(try Fixtures.bytes("jpeg/\(name).jpg")).info
        #expect(info.colorSpace == space, "\(name)")
        #expect(info.components.flatMap { [$0.horizontalSampling, $0.verticalSampling] } == sampling, "\(name)")
    }
    let progressive = try JPEGDecoder.decode(try Fixtures.bytes("jpeg/progressive_420.jpg")).info
    #expect(progressive.process == .progressive)
    #expect(progressive.scanCount > 1)
    let restart = try JPEGDecoder.decode(try Fixtures.bytes("jpeg/restart_blocks_420.jpg")).info
    #expect(restart.restartInterval > 0)
}

@Test(arguments: ["icc_srgb", "icc_multichunk"])
func jpegKeepsICCProfile(_ name: String) throws {
    let decoded = try JPEGDecoder.decode(try Fixtures.bytes("jpeg/\(name).jpg"))
    #expect(decoded.iccProfile == (try Fixtures.bytes("jpeg/\(name).icc")))
    let plain = try JPEGDecoder.decode(try Fixtures.bytes("jpeg/q75_420.jpg"))
    #expect(plain.iccProfile == nil)
    #expect(plain.exif == nil)
}

@Test func jpegOrientationCanBeLeftUnapplied() throws {
    let bytes = try Fixtures.bytes("jpeg/orientation_6.jpg")
    let upright = try JPEGDecoder.decode(bytes)
    let stored = try JPEGDecoder.decode(bytes, options: .init(applyOrientation: false))
    #expect(upright.orientation == .right && stored.orientation == .right)
    #expect(!stored.orientationApplied && upright.orientationApplied)
    #expect(stored.image.width == 24 && stored.image.height == 16)
    #expect(upright.image.width == 16 && upright.image.height == 24)
    #expect(upright.storedWidth == 24 && upright.storedHeight == 16)
    #expect(EXIFOrientation.right.apply(to: stored.image) == upright.image)
    #expect(upright.exif != nil)
}
