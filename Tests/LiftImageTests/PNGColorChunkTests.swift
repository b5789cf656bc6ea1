import LiftImage
import Testing
import TestSupport

/// Colour chunks are checked as libpng checks them before they are kept or written, and a PNG's
/// `eXIf` orientation is applied as a JPEG's is.
@Suite struct PNGColorChunkTests {
    /// A 2×1 RGB PNG with `chunks` (name, payload) before its image data, and `late` after it.
    private func png(_ chunks: [(String, [UInt8])], late: [(String, [UInt8])] = []) -> [UInt8] {
        let rows: [UInt8] = [0, 255, 0, 0, 0, 0, 255]
        return PNGBytes.signature + PNGBytes.ihdr(width: 2, height: 1, colorType: 2)
            + chunks.flatMap { PNGBytes.chunk($0.0, $0.1) } + PNGBytes.chunk("IDAT", PNGBytes.storedZlib(rows))
            + late.flatMap { PNGBytes.chunk($0.0, $0.1) } + PNGBytes.chunk("IEND", [])
    }

    @Test(arguments: [
        ("gAMA", [0, 0, 0, 0]), ("gAMA", [0, 0, 0, 15]), ("gAMA", [0x40, 0, 0, 0]), ("gAMA", [0, 0, 0xB1]),
        ("sRGB", [9]), ("sRGB", [4]), ("sRGB", [0, 0]), ("pHYs", [0, 0, 1, 0, 0, 0, 1, 0, 2]),
        ("iCCP", [0, 0, 1]), ("iCCP", Array("name".utf8) + [0, 1, 2]), ("eXIf", [0x45, 0x78]),
    ] as [(String, [UInt8])])
    func invalidChunksAreDroppedWhenRead(name: String, payload: [UInt8]) throws {
        let decoded = try PNGDecoder.decode(png([(name, payload)]))
        #expect(decoded.info.metadata == PNGMetadata(), "\(name) \(payload)")
        #expect(!PNGMetadata.isValid(name: name, payload: payload))
    }

    @Test func validChunksAreKept() throws {
        let metadata = try PNGDecoder.decode(png([("gAMA", [0, 0, 0xB1, 0x8F]), ("sRGB", [3])])).info.metadata
        #expect(metadata == PNGMetadata(gAMA: [0, 0, 0xB1, 0x8F], sRGB: [3]))
    }

    @Test func nothingInvalidIsWrittenAndSRGBNeverBesideAProfile() throws {
        let image = PNGColorProfileTests.image(gray: false)
        let profile = try #require(PNGColorProfile.chunkPayload(profile: PNGColorProfileTests.profile(space: "RGB ")))
        let given = PNGMetadata(gAMA: [0, 0, 0, 0], sRGB: [0], iCCP: profile, pHYs: [0, 0, 0, 1, 0, 0, 0, 1, 7])
        let written = try PNGDecoder.readInfo(try PNGEncoder.encode(image, options: .init(metadata: given))).metadata
        #expect(written == PNGMetadata(iCCP: profile))
        // A profile that does not fit the file is left out; sRGB then says what the colours are.
        let gray = PNGMetadata(sRGB: [1], iCCP: try #require(PNGColorProfile.chunkPayload(profile: PNGColorProfileTests.profile(space: "GRAY"))))
        #expect(try PNGDecoder.readInfo(try PNGEncoder.encode(image, options: .init(metadata: gray))).metadata == PNGMetadata(sRGB: [1]))
    }

    /// A big-endian TIFF block whose one entry is the orientation `value`.
    private func exif(orientation value: UInt8) -> [UInt8] {
        [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, value, 0, 0, 0, 0, 0, 0, 0, 0]
    }

    @Test(arguments: [false, true]) func aPNGsEXIfOrientationIsApplied(afterImageData: Bool) throws {
        let chunk = [("eXIf", exif(orientation: 6))]
        let bytes = afterImageData ? png([], late: chunk) : png(chunk)
        let upright = try ImageIO.decode(bytes)
        // 2×1 red, black stored; a quarter turn clockwise shows it 1×2, red on top.
        #expect(upright.width == 1 && upright.height == 2)
        #expect(Array(upright.pixels.prefix(4)) == [255, 0, 0, 255])
        #expect(try ImageIO.decode(bytes, applyOrientation: false).width == 2)
    }
}
