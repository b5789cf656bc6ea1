import Foundation
import LiftImage
import TestSupport
import Testing

/// One conformance case from `Tests/Fixtures/png/manifest.tsv` (written by Tools/fixtures/make_png_fixtures.py).
struct PNGCorpusCase: Sendable, CustomTestStringConvertible {
    let name: String, width: Int, height: Int, colorType: UInt8, bitDepth: Int, interlaced: Bool
    var testDescription: String { name }

    static let all: [PNGCorpusCase] = {
        guard let text = try? String(contentsOf: Fixtures.url("png/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { line in
            let f = line.split(separator: "\t").map(String.init)
            return PNGCorpusCase(name: f[0], width: Int(f[1])!, height: Int(f[2])!, colorType: UInt8(f[3])!,
                                 bitDepth: Int(f[4])!, interlaced: f[5] == "1")
        }
    }()

    func file() throws -> [UInt8] { try Fixtures.bytes("png/\(name).png") }
}

@Suite struct PNGDecoderTests {
    @Test func corpusIsPresent() {
        // Every colour type x bit depth x interlace (15 x 2) plus keys, palette alpha, odd sizes, metadata, Pillow.
        #expect(PNGCorpusCase.all.count >= 40)
    }

    @Test(arguments: PNGCorpusCase.all)
    func decodesCorpusToRGBA8(_ c: PNGCorpusCase) throws {
        let decoded = try PNGDecoder.decode(try c.file())
        #expect(decoded.image.width == c.width && decoded.image.height == c.height)
        #expect(decoded.info.header.colorType.rawValue == c.colorType)
        #expect(decoded.info.header.bitDepth == c.bitDepth)
        #expect(decoded.info.header.interlaced == c.interlaced)
        let expected = try Fixtures.bytes("png/\(c.name).rgba8")
        #expect(decoded.image.pixels == expected)
    }

    @Test(arguments: PNGCorpusCase.all)
    func decodesCorpusToRGBA16(_ c: PNGCorpusCase) throws {
        let decoded = try PNGDecoder.decode16(try c.file())
        let raw = try Fixtures.bytes("png/\(c.name).rgba16")
        let expected = (0..<(raw.count / 2)).map { UInt16(raw[2 * $0]) << 8 | UInt16(raw[2 * $0 + 1]) }
        #expect(decoded.image.pixels == expected)
    }

    @Test func keepsMetadataChunksAsBytes() throws {
        let decoded = try PNGDecoder.decode(try Fixtures.bytes("png/metadata-ct2-d08.png"))
        let metadata = decoded.info.metadata
        #expect(metadata.gAMA == [0, 0, 0xB1, 0x8F])
        #expect(metadata.sRGB == [0])
        #expect(metadata.pHYs == [0, 0, 0x0B, 0x13, 0, 0, 0x0B, 0x13, 1])
        #expect(metadata.eXIf == [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0])
        #expect(metadata.iCCP?.prefix(6) == [0x66, 0x61, 0x6B, 0x65, 0, 0])
        #expect(metadata.chunks.map(\.name) == ["gAMA", "sRGB", "iCCP", "pHYs", "eXIf"])
    }

    @Test func readInfoMatchesDecode() throws {
        for c in PNGCorpusCase.all {
            let bytes = try c.file()
            #expect(try PNGDecoder.readInfo(bytes) == PNGDecoder.decode(bytes).info)
        }
    }

    @Test func ignoresBytesAfterIEND() throws {
        let c = PNGCorpusCase.all[0]
        let bytes = try c.file()
        #expect(try PNGDecoder.decode(bytes + [1, 2, 3, 4, 5]).image == PNGDecoder.decode(bytes).image)
    }
}

@Suite struct PNGGrayDecoderTests {
    @Test(arguments: PNGCorpusCase.all.filter { $0.colorType == 0 })
    func decodeGrayMatchesTheRedChannel(_ c: PNGCorpusCase) throws {
        let gray = try PNGDecoder.decodeGray(try c.file())
        let rgba = try Fixtures.bytes("png/\(c.name).rgba8")
        #expect(gray.image.pixels == stride(from: 0, to: rgba.count, by: 4).map { rgba[$0] })
    }

    @Test func decodeGrayRejectsColourImages() throws {
        #expect(throws: PNGParsingError.notGray(colorType: 2)) { try PNGDecoder.decodeGray(try Fixtures.bytes("png/ct2-d08-plain.png")) }
    }
}
