import Foundation
import LiftImage
import TestSupport
import Testing

/// Runs `body` and returns the error it threw, as `E`, or nil.
func thrownError<E: Error>(_ type: E.Type, _ body: () throws -> Void) -> E? {
    do { try body() } catch let error as E { return error } catch { Issue.record("unexpected error \(error)") }
    return nil
}

@Suite struct PNGInvalidInputTests {
    @Test func rejectsNonPNG() {
        #expect(throws: PNGLexingError.notPNG(leadingBytes: [0xFF, 0xD8, 0xFF, 0xE0])) { try PNGDecoder.decode([0xFF, 0xD8, 0xFF, 0xE0]) }
        #expect(throws: PNGLexingError.notPNG(leadingBytes: [])) { try PNGDecoder.decode([]) }
    }

    @Test func truncationAtEveryChunkBoundaryAndInsideEveryChunk() throws {
        let file = try Fixtures.bytes("png/metadata-ct2-d08.png")
        let chunks = PNGBytes.chunks(file)
        let idats = chunks.filter { $0.type == "IDAT" }
        #expect(idats.count == 5)
        #expect(throws: PNGParsingError.missingIHDR(firstChunk: "(end of file)")) { try PNGDecoder.decode(Array(file[..<8])) }
        for chunk in chunks {
            let end = chunk.offset + chunk.length
            // Cut exactly after this chunk.
            let cut = Array(file[..<end])
            switch chunk.type {
            case "IEND":
                #expect(try PNGDecoder.decode(cut).image.width == 8)
            case "IDAT" where chunk.offset == idats.last?.offset:
                #expect(throws: PNGParsingError.missingIEND) { try PNGDecoder.decode(cut) }
            case "IDAT":
                let error = thrownError(PNGDataError.self) { _ = try PNGDecoder.decode(cut) }
                guard case .truncatedImageData(let offset, let missing)? = error else { Issue.record("\(String(describing: error))"); continue }
                #expect(offset == chunk.offset && missing > 0)
            default:
                #expect(throws: PNGParsingError.missingIDAT) { try PNGDecoder.decode(cut) }
            }
            // Cut inside this chunk: in its header, its payload, its CRC.
            for inside in Set([chunk.offset + 3, chunk.offset + 8 + (chunk.length - 12) / 2, end - 1]) where inside > chunk.offset {
                let error = thrownError(PNGLexingError.self) { _ = try PNGDecoder.decode(Array(file[..<inside])) }
                guard case .truncatedChunk(let offset, _, _, let available)? = error else { Issue.record("\(String(describing: error))"); continue }
                #expect(offset == chunk.offset && available == inside - chunk.offset)
            }
        }
    }

    @Test func badCRCOnCriticalChunkIsAnErrorAndOnAncillaryChunkIsSkipped() throws {
        let file = try Fixtures.bytes("png/metadata-ct2-d08.png")
        for chunk in PNGBytes.chunks(file) {
            var broken = file
            broken[chunk.offset + chunk.length - 1] ^= 0x01
            if chunk.type.first!.isUppercase {
                let error = thrownError(PNGLexingError.self) { _ = try PNGDecoder.decode(broken) }
                guard case .checksumMismatch(let offset, let name, _, _)? = error else { Issue.record("\(chunk.type): \(String(describing: error))"); continue }
                #expect(offset == chunk.offset && name == chunk.type)
            } else {
                let decoded = try PNGDecoder.decode(broken)
                #expect(decoded.info.metadata.chunks.map(\.name).contains(chunk.type) == false)
            }
        }
    }

    @Test func rejectsBadIHDRFields() {
        let idat = PNGBytes.chunk("IDAT", PNGBytes.storedZlib([0, 0])) + PNGBytes.chunk("IEND", [])
        func decode(_ ihdr: [UInt8]) throws { _ = try PNGDecoder.decode(PNGBytes.signature + ihdr + idat) }
        #expect(throws: PNGParsingError.invalidDimensions(width: 0, height: 1)) { try decode(PNGBytes.ihdr(width: 0, height: 1)) }
        #expect(throws: PNGParsingError.invalidDimensions(width: 1, height: 0x8000_0000)) { try decode(PNGBytes.ihdr(width: 1, height: 0x8000_0000)) }
        #expect(throws: PNGParsingError.invalidColorType(5)) { try decode(PNGBytes.ihdr(width: 1, height: 1, colorType: 5)) }
        #expect(throws: PNGParsingError.invalidBitDepth(colorType: 2, bitDepth: 4)) { try decode(PNGBytes.ihdr(width: 1, height: 1, depth: 4, colorType: 2)) }
        #expect(throws: PNGParsingError.invalidBitDepth(colorType: 3, bitDepth: 16)) { try decode(PNGBytes.ihdr(width: 1, height: 1, depth: 16, colorType: 3)) }
        #expect(throws: PNGParsingError.invalidBitDepth(colorType: 0, bitDepth: 3)) { try decode(PNGBytes.ihdr(width: 1, height: 1, depth: 3)) }
        #expect(throws: PNGParsingError.invalidCompressionMethod(1)) { try decode(PNGBytes.ihdr(width: 1, height: 1, compression: 1)) }
        #expect(throws: PNGParsingError.invalidFilterMethod(1)) { try decode(PNGBytes.ihdr(width: 1, height: 1, filter: 1)) }
        #expect(throws: PNGParsingError.invalidInterlaceMethod(2)) { try decode(PNGBytes.ihdr(width: 1, height: 1, interlace: 2)) }
        #expect(throws: PNGParsingError.invalidIHDRLength(12)) { try decode(PNGBytes.chunk("IHDR", [UInt8](repeating: 1, count: 12))) }
        #expect(throws: PNGParsingError.missingIHDR(firstChunk: "IDAT")) { try decode([]) }
    }

    @Test func rejectsBadChunkStructure() throws {
        let sig = PNGBytes.signature, ihdr = PNGBytes.ihdr(width: 1, height: 1)
        let idat = PNGBytes.chunk("IDAT", PNGBytes.storedZlib([0, 7])), iend = PNGBytes.chunk("IEND", [])
        #expect(try PNGDecoder.decode(sig + ihdr + idat + iend).image.pixels == [7, 7, 7, 255])
        #expect(throws: PNGParsingError.missingIDAT) { try PNGDecoder.decode(sig + ihdr + iend) }
        #expect(throws: PNGParsingError.missingIDAT) { try PNGDecoder.decode(sig + ihdr) }
        #expect(throws: PNGParsingError.missingIEND) { try PNGDecoder.decode(sig + ihdr + idat) }
        #expect(throws: PNGParsingError.duplicateChunk(chunk: "IHDR", offset: 33)) { try PNGDecoder.decode(sig + ihdr + ihdr + idat + iend) }
        #expect(throws: PNGParsingError.unknownCriticalChunk(chunk: "XyZw", offset: 33)) {
            try PNGDecoder.decode(sig + ihdr + PNGBytes.chunk("XyZw", []) + idat + iend)
        }
        #expect(throws: PNGLexingError.invalidChunkName(offset: 33, bytes: [0x31, 0x32, 0x33, 0x34])) {
            try PNGDecoder.decode(sig + ihdr + PNGBytes.chunk("1234", []) + idat + iend)
        }
        #expect(throws: PNGLexingError.chunkTooLarge(offset: 33, chunk: "IDAT", length: 15, limit: 13)) {
            try PNGDecoder.decode(PNGBytes.gray8(width: 3, height: 1, scanlines: [0, 1, 2, 3]), limits: DecodingLimits(maxChunkBytes: 13))
        }
        #expect(throws: PNGParsingError.unexpectedPLTE(colorType: 0)) {
            try PNGDecoder.decode(sig + ihdr + PNGBytes.chunk("PLTE", [1, 2, 3]) + idat + iend)
        }
        let palette = PNGBytes.ihdr(width: 1, height: 1, colorType: 3)
        #expect(throws: PNGParsingError.missingPLTE) { try PNGDecoder.decode(sig + palette + idat + iend) }
        #expect(throws: PNGParsingError.invalidPLTELength(4)) { try PNGDecoder.decode(sig + palette + PNGBytes.chunk("PLTE", [1, 2, 3, 4]) + idat + iend) }
        #expect(throws: PNGParsingError.chunkOutOfOrder(chunk: "tRNS", offset: 33, reason: "tRNS must come after PLTE")) {
            try PNGDecoder.decode(sig + palette + PNGBytes.chunk("tRNS", [0]) + PNGBytes.chunk("PLTE", [1, 2, 3]) + idat + iend)
        }
        #expect(throws: PNGParsingError.invalidTRNS(colorType: 0, length: 3)) { try PNGDecoder.decode(sig + ihdr + PNGBytes.chunk("tRNS", [0, 0, 0]) + idat + iend) }
        // IDAT chunks interrupted by another chunk: while data is still needed the run has ended early;
        // once the stream is complete, a later IDAT is out of order.
        let stream = PNGBytes.storedZlib([0, 7]), text = PNGBytes.chunk("teXt", [65, 0, 66])
        let split = PNGBytes.chunk("IDAT", Array(stream[..<5])) + text + PNGBytes.chunk("IDAT", Array(stream[5...]))
        #expect(throws: PNGDataError.truncatedImageData(offset: 33, bytesMissing: 2)) { try PNGDecoder.decode(sig + ihdr + split + iend) }
        #expect(throws: PNGParsingError.chunkOutOfOrder(chunk: "IDAT", offset: 33 + idat.count + text.count, reason: "IDAT chunks must be consecutive")) {
            try PNGDecoder.decode(sig + ihdr + idat + text + PNGBytes.chunk("IDAT", []) + iend)
        }
    }

    @Test func rejectsBadImageData() {
        // Wrong zlib header check bits.
        #expect(throws: PNGDataError.corruptStream(offset: 33, reason: "incorrect header check")) {
            try PNGDecoder.decode(PNGBytes.signature + PNGBytes.ihdr(width: 1, height: 1) + PNGBytes.chunk("IDAT", [0x78, 0x00, 1, 2]) + PNGBytes.chunk("IEND", []))
        }
        var badAdler = PNGBytes.storedZlib([0, 7])
        badAdler[badAdler.count - 1] ^= 1
        #expect(throws: PNGDataError.adlerMismatch(offset: 33)) {
            try PNGDecoder.decode(PNGBytes.signature + PNGBytes.ihdr(width: 1, height: 1) + PNGBytes.chunk("IDAT", badAdler) + PNGBytes.chunk("IEND", []))
        }
        #expect(throws: PNGDataError.invalidFilterType(type: 5, pass: 0, row: 1)) { try PNGDecoder.decode(PNGBytes.gray8(width: 2, height: 2, scanlines: [0, 1, 2, 5, 3, 4])) }
        #expect(throws: PNGDataError.truncatedImageData(offset: 33, bytesMissing: 3)) { try PNGDecoder.decode(PNGBytes.gray8(width: 2, height: 2, scanlines: [0, 1, 2])) }
        #expect(throws: PNGDataError.extraImageData(offset: 33)) { try PNGDecoder.decode(PNGBytes.gray8(width: 2, height: 1, scanlines: [0, 1, 2, 0])) }
        // Rows complete, but the stream's Adler-32 trailer is cut off.
        let noTrailer = Array(PNGBytes.storedZlib([0, 9]).dropLast(4))
        #expect(throws: PNGDataError.truncatedImageData(offset: 33, bytesMissing: 0)) {
            try PNGDecoder.decode(PNGBytes.signature + PNGBytes.ihdr(width: 1, height: 1) + PNGBytes.chunk("IDAT", noTrailer) + PNGBytes.chunk("IEND", []))
        }
        // Compressed bytes after the end of the zlib stream.
        let trailing = PNGBytes.storedZlib([0, 9]) + [0]
        #expect(throws: PNGDataError.extraImageData(offset: 33)) {
            try PNGDecoder.decode(PNGBytes.signature + PNGBytes.ihdr(width: 1, height: 1) + PNGBytes.chunk("IDAT", trailing) + PNGBytes.chunk("IEND", []))
        }
    }

    @Test func decompressionBombsFailFast() throws {
        #expect(throws: PNGParsingError.limitExceeded(limit: "pixels", value: 10_000_000_000, maximum: 200_000_000)) {
            try PNGDecoder.decode(try Fixtures.bytes("png/bomb-huge-declared.png"))
        }
        let error = thrownError(PNGDataError.self) { _ = try PNGDecoder.decode(try Fixtures.bytes("png/bomb-ratio.png")) }
        guard case .impossibleCompressionRatio(let compressed, let needed)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(needed == 12000 * (1 + 12000 * 4) && compressed < 100)
        #expect(throws: PNGDataError.extraImageData(offset: 33)) { try PNGDecoder.decode(try Fixtures.bytes("png/bomb-endless-stream.png")) }
        let small = DecodingLimits(maxInflatedBytes: 1000)
        #expect(throws: PNGParsingError.limitExceeded(limit: "inflated bytes", value: 32 * (1 + 32 * 4), maximum: 1000)) {
            try PNGDecoder.decode(try Fixtures.bytes("png/ct6-d08-plain.png"), limits: small)
        }
        let unlimited = DecodingLimits(maxPixels: .max, maxDimension: .max, maxChunkBytes: .max, maxInflatedBytes: .max)
        let error2 = thrownError(PNGParsingError.self) {
            _ = try PNGDecoder.decode(PNGBytes.signature + PNGBytes.ihdr(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, colorType: 6), limits: unlimited)
        }
        guard case .limitExceeded(limit: "pixels", _, _)? = error2 else { Issue.record("\(String(describing: error2))"); return }
        #expect(throws: PNGParsingError.limitExceeded(limit: "width", value: 32, maximum: 31)) {
            try PNGDecoder.decode(try Fixtures.bytes("png/ct6-d08-plain.png"), limits: DecodingLimits(maxDimension: 31))
        }
    }

    /// Limit errors read as sentences with units.
    @Test func limitErrorsSayWhatWasTooLarge() {
        #expect(PNGParsingError.limitExceeded(limit: "pixels", value: 10_000_000_000, maximum: 200_000_000).description
                == "the image needs 10000000000 pixels, over the limit of 200000000")
        #expect(PNGParsingError.limitExceeded(limit: "width", value: 32, maximum: 31).description
                == "the image is 32 pixels wide, over the limit of 31")
        #expect(PNGParsingError.limitExceeded(limit: "height", value: 40, maximum: 31).description
                == "the image is 40 pixels tall, over the limit of 31")
    }
}
