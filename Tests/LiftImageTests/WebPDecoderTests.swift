import CZlib
import Foundation
import LiftImage
import Testing
import TestSupport

/// One entry of a WebP corpus manifest (written by Tools/fixtures/make_webp_fixtures.py).
struct WebPFixture: Decodable, CustomStringConvertible, Sendable {
    let name: String
    let width: Int
    let height: Int
    let options: String
    /// zlib's CRC-32 of dwebp's RGBA output.
    let crc32: UInt32
    let compression: String
    let icc: Int?
    let orientation: Int?
    let frames: Int?
    var description: String { name }

    /// The committed fixtures in Tests/Fixtures/webp.
    static let all: [WebPFixture] = load(Fixtures.url("webp/manifest.json"))

    /// The entries of the manifest at `url` (empty when it cannot be read).
    static func load(_ url: URL) -> [WebPFixture] {
        guard let data = try? Data(contentsOf: url), let list = try? JSONDecoder().decode([WebPFixture].self, from: data) else { return [] }
        return list
    }
}

/// zlib's CRC-32 of `bytes`, the checksum the fixture manifests record.
func crc32Checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
}

@Test func webpCorpusIsPresent() {
    #expect(WebPFixture.all.count >= 70)
    #expect(WebPFixture.all.contains { $0.compression == "lossless" } && WebPFixture.all.contains { $0.compression == "lossy" })
}

@Test(arguments: WebPFixture.all)
func webpMatchesLibwebp(_ fixture: WebPFixture) throws {
    let decoded = try WebPDecoder.decode(try Fixtures.bytes("webp/\(fixture.name).webp"), options: .init(applyOrientation: false))
    #expect(decoded.image.width == fixture.width && decoded.image.height == fixture.height)
    #expect(crc32Checksum(decoded.image.pixels) == fixture.crc32, "\(fixture.name) (\(fixture.options)) differs from dwebp")
    #expect(decoded.info.compression.rawValue == fixture.compression)
    #expect(decoded.info.frameCount == (fixture.frames ?? 0))
    #expect(decoded.iccProfile?.count == fixture.icc)
    #expect(decoded.orientation.rawValue == (fixture.orientation ?? 1))
}

/// Lossy colour conversion runs in row bands; the pixels must not depend on the split.
@Test func webpPixelsDoNotDependOnTheThreadCount() throws {
    for name in ["lossy_200x150", "lossy_alpha_cutout", "lossy_2x3"] {
        let bytes = try Fixtures.bytes("webp/\(name).webp")
        let one = try WebPDecoder.decode(bytes, options: .init(threads: 1)).image
        let three = try WebPDecoder.decode(bytes, options: .init(threads: 3)).image
        #expect(one == three, "\(name)")
    }
}

@Test func webpAppliesTheExifOrientation() throws {
    for name in ["meta_lossy", "meta_lossless"] {
        let bytes = try Fixtures.bytes("webp/\(name).webp")
        let stored = try WebPDecoder.decode(bytes, options: .init(applyOrientation: false))
        let upright = try WebPDecoder.decode(bytes)
        #expect(upright.orientation == .right && upright.orientationApplied)
        #expect(upright.image == EXIFOrientation.right.apply(to: stored.image))
        #expect(upright.image.width == stored.image.height)
        #expect(upright.exif.map { EXIFOrientation(exif: $0) } == .right)
    }
}

/// The animation decodes to its first frame on a transparent canvas: outside the 30×20 frame at
/// (10, 20) every pixel is transparent black.
@Test func webpAnimationShowsItsFirstFrame() throws {
    let decoded = try WebPDecoder.decode(try Fixtures.bytes("webp/animated.webp"))
    let image = decoded.image
    #expect(decoded.info.frameCount == 2 && decoded.info.hasAlpha)
    for y in 0 ..< image.height {
        for x in 0 ..< image.width where !(10 ..< 40).contains(x) || !(20 ..< 40).contains(y) {
            #expect(image.pixels[(y * image.width + x) * 4 ..< (y * image.width + x) * 4 + 4].allSatisfy { $0 == 0 })
        }
    }
}

@Test func webpGoesThroughImageIO() throws {
    let bytes = try Fixtures.bytes("webp/meta_lossy.webp")
    #expect(ImageFormat.sniff(bytes) == .webp)
    #expect(ImageFormat.sniff(Array(bytes.prefix(12))) == .webp)
    #expect(ImageFormat.sniff(Array(bytes.prefix(11))) == nil)
    let photo = try ImageIO.decodePhoto(bytes)
    #expect(photo.image == (try WebPDecoder.decode(bytes)).image)
    // The ICC profile travels as a PNG iCCP chunk, so cut-outs keep the photo's colours.
    let iccp = try #require(photo.color.iCCP)
    #expect(PNGColorProfile.colorSpace(ofChunk: iccp) == .rgb)
    #expect(throws: WebPError.truncatedFile(declared: bytes.count - 8, available: bytes.count - 18)) {
        try ImageIO.decode(Array(bytes.dropLast(10)))
    }
}

/// The opt-in conformance run over a large corpus built from photos:
/// `make_webp_fixtures.py --photos DIR --out CORPUS`, then `LIFT_WEBP_CORPUS=CORPUS swift test -c release --filter webpLargeCorpus`.
@Test(.enabled(if: ProcessInfo.processInfo.environment["LIFT_WEBP_CORPUS"] != nil))
func webpLargeCorpus() throws {
    let directory = URL(fileURLWithPath: ProcessInfo.processInfo.environment["LIFT_WEBP_CORPUS"] ?? "")
    let fixtures = WebPFixture.load(directory.appendingPathComponent("manifest.json"))
    try #require(!fixtures.isEmpty, "no manifest.json in \(directory.path)")
    var mismatches: [String] = []
    var pixels = 0
    for fixture in fixtures {
        let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(fixture.name + ".webp")))
        let decoded = try WebPDecoder.decode(bytes, options: .init(applyOrientation: false))
        pixels += decoded.image.pixelCount
        if crc32Checksum(decoded.image.pixels) != fixture.crc32 { mismatches.append(fixture.name) }
    }
    print("WebP corpus: \(fixtures.count) files, \(pixels / 1_000_000) Mpixel, \(mismatches.count) mismatches \(mismatches)")
    #expect(mismatches.isEmpty)
}
