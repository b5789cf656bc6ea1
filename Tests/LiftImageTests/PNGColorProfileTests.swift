import LiftImage
import Testing
import TestSupport

/// Colour profiles from photos into PNGs made from them: a JPEG's ICC profile becomes iCCP, and a
/// profile goes only into files whose colour type it fits.
@Suite struct PNGColorProfileTests {
    /// A stand-in ICC profile: a 128-byte header naming `space` at bytes 16–19.
    static func profile(space: String) -> [UInt8] {
        var bytes = [UInt8](repeating: 7, count: 128)
        bytes.replaceSubrange(16 ..< 20, with: Array(space.utf8))
        return bytes
    }

    /// 8×8 pixels of `levels` different values (64: every pixel differs), grey or coloured.
    static func image(gray: Bool, levels: Int = 64) -> RGBAImage {
        var pixels: [UInt8] = []
        for i in 0 ..< 64 {
            let v = UInt8(i % levels * 4)
            pixels += gray ? [v, v, v, 255] : [v, 10, 200, 255]
        }
        return RGBAImage(width: 8, height: 8, pixels: pixels)
    }

    static func encoded(_ image: RGBAImage, profile: [UInt8]) throws -> PNGInfo {
        let payload = try #require(PNGColorProfile.chunkPayload(profile: profile))
        let png = try PNGEncoder.encode(image, options: PNGEncoder.Options(reduceColorType: true, metadata: PNGMetadata(iCCP: payload)))
        #expect(try PNGDecoder.decode(png).image == image)
        return try PNGDecoder.readInfo(png)
    }

    @Test func aJPEGProfileBecomesAnICCPChunkThatInflatesToIt() throws {
        let photo = try ImageIO.decodePhoto(try Fixtures.bytes("jpeg/icc_srgb.jpg"))
        let payload = try #require(photo.color.iCCP)
        #expect(PNGColorProfile.colorSpace(ofChunk: payload) == .rgb)
        #expect(Array(payload.prefix(13)) == Array("ICC Profile".utf8) + [0, 0])
        // The chunk round-trips through a PNG file and still names the profile's colour space.
        let png = try PNGEncoder.encode(photo.image, options: PNGEncoder.Options(metadata: photo.color))
        #expect(try PNGDecoder.readInfo(png).metadata.iCCP == payload)
        #expect(try ImageIO.decodePhoto(png).color.iCCP == payload)
        #expect(try ImageIO.decodePhoto(try Fixtures.bytes("jpeg/gray.jpg")).color == PNGMetadata())
    }

    @Test func anRGBProfileKeepsAGreyImageInAColourType() throws {
        let info = try Self.encoded(Self.image(gray: true), profile: Self.profile(space: "RGB "))
        #expect(info.header.colorType != .gray && info.header.colorType != .grayAlpha)
        #expect(info.metadata.iCCP != nil)
        let colour = try Self.encoded(Self.image(gray: false), profile: Self.profile(space: "RGB "))
        #expect(colour.metadata.iCCP != nil)
    }

    @Test func aGreyProfileGoesOnlyIntoGreyFilesAndOtherSpacesNowhere() throws {
        let grey = try Self.encoded(Self.image(gray: true), profile: Self.profile(space: "GRAY"))
        #expect(grey.header.colorType == .gray)
        #expect(grey.metadata.iCCP != nil)
        // Three grey levels would fit a 2-bit palette, a colour type: the profile keeps them grey.
        let fewLevels = try Self.encoded(Self.image(gray: true, levels: 3), profile: Self.profile(space: "GRAY"))
        #expect(fewLevels.header.colorType == .gray && fewLevels.metadata.iCCP != nil)
        let paletted = try PNGDecoder.readInfo(try PNGEncoder.encode(Self.image(gray: true, levels: 3),
                                                                     options: PNGEncoder.Options(reduceColorType: true)))
        #expect(paletted.header.colorType == .palette)  // what the same pixels get without a profile
        #expect(try Self.encoded(Self.image(gray: false), profile: Self.profile(space: "GRAY")).metadata.iCCP == nil)
        #expect(try Self.encoded(Self.image(gray: false), profile: Self.profile(space: "CMYK")).metadata.iCCP == nil)
        // The synthetic 150 kB profile of the multi-chunk fixture names no colour space PNG accepts.
        let multichunk = try ImageIO.decodePhoto(try Fixtures.bytes("jpeg/icc_multichunk.jpg"))
        #expect(multichunk.color.iCCP.map { PNGColorProfile.colorSpace(ofChunk: $0) } == .other)
    }

    @Test func malformedChunksHaveNoColourSpace() {
        #expect(PNGColorProfile.colorSpace(ofChunk: []) == nil)
        #expect(PNGColorProfile.colorSpace(ofChunk: Array("name".utf8) + [0, 0, 1, 2, 3]) == nil)
        #expect(PNGColorProfile.colorSpace(ofChunk: Array("name".utf8) + [0, 1]) == nil)
        #expect(PNGColorProfile.chunkPayload(profile: []) == nil)
    }
}
