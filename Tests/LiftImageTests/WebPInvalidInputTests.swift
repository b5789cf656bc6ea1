import Foundation
import LiftImage
import Testing
import TestSupport

/// Decodes and returns the error, or nil when decoding succeeded.
private func decodeError(_ bytes: [UInt8], limits: DecodingLimits = .default) -> WebPError? {
    do {
        _ = try WebPDecoder.decode(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// A RIFF/WEBP file of `chunks` (FourCC, payload), odd payloads padded.
func riffFile(_ chunks: [(String, [UInt8])]) -> [UInt8] {
    var body = Array("WEBP".utf8)
    for (name, payload) in chunks {
        body += Array(name.utf8) + littleEndian32(payload.count) + payload + (payload.count & 1 == 1 ? [0] : [])
    }
    return Array("RIFF".utf8) + littleEndian32(body.count) + body
}

func littleEndian32(_ value: Int) -> [UInt8] { (0 ..< 4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

/// The payload of the first chunk named `fourCC` in a RIFF file.
private func payload(_ file: [UInt8], _ fourCC: String) -> [UInt8]? {
    var position = 12
    while position + 8 <= file.count {
        let size = Int(file[position + 4]) | Int(file[position + 5]) << 8 | Int(file[position + 6]) << 16 | Int(file[position + 7]) << 24
        if String(decoding: file[position ..< position + 4], as: UTF8.self) == fourCC { return Array(file[position + 8 ..< position + 8 + size]) }
        position += 8 + size + (size & 1)
    }
    return nil
}

/// Bits packed least-significant first, as the lossless format reads them.
struct LosslessBits {
    var bytes: [UInt8] = []
    private var count = 0

    mutating func put(_ value: Int, _ bits: Int) {
        for i in 0 ..< bits {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (count % 8)) }
            count += 1
        }
    }

    /// A `VP8L` header: signature, size, alpha hint 0, `version`.
    static func header(width: Int, height: Int, version: Int = 0) -> LosslessBits {
        var bits = LosslessBits()
        bits.put(0x2F, 8)
        bits.put(width - 1, 14)
        bits.put(height - 1, 14)
        bits.put(0, 1)
        bits.put(version, 3)
        return bits
    }

    /// A simple prefix code of the one symbol `symbol` (< 256), which then takes no bits.
    mutating func putSingleSymbolCode(_ symbol: Int) {
        put(1, 1)
        put(0, 1)
        put(symbol > 1 ? 1 : 0, 1)
        put(symbol, symbol > 1 ? 8 : 1)
    }

    /// The start of a normal code: 4 code-length code lengths for symbols 17, 18, 0, 1.
    mutating func putCodeLengthCode(_ lengths: [Int]) {
        put(0, 1)
        put(0, 4)
        for length in lengths { put(length, 3) }
    }
}

@Test func webpRejectsOtherData() throws {
    #expect(decodeError([]) == .notWebP)
    #expect(decodeError(Array("RIFF\u{4}\0\0\0WEBX".utf8)) == .notWebP)
    #expect(decodeError(try Fixtures.bytes("png/ct2-d08-plain.png")) == .notWebP)
    #expect(decodeError(Array("RIFF\u{20}\0\0\0".utf8)) == .truncatedFile(declared: 32, available: 0))
}

@Test func webpChecksRIFFSizes() throws {
    let file = try Fixtures.bytes("webp/lossy_q75.webp")
    var tooSmall = file
    tooSmall[4 ..< 8] = [4, 0, 0, 0]
    #expect(decodeError(tooSmall) == .invalidRIFFSize(4))
    #expect(decodeError(Array(file.dropLast(1))) == .truncatedFile(declared: file.count - 8, available: file.count - 9))
    // A RIFF size smaller than the file: the trailing bytes are ignored.
    #expect(decodeError(file + [1, 2, 3]) == nil)
    // A chunk whose payload runs past the RIFF data.
    var overrun = file
    overrun[16 ..< 20] = littleEndian32(file.count)[...]
    #expect(decodeError(overrun) == .truncatedChunk(fourCC: "VP8 ", offset: 12))
}

@Test func webpChecksTheExtendedContainer() throws {
    let image = try #require(payload(try Fixtures.bytes("webp/lossless_17x9.webp"), "VP8L"))
    let canvas17x9: [UInt8] = [0, 0, 0, 0, 16, 0, 0, 8, 0, 0]
    #expect(decodeError(riffFile([("VP8X", canvas17x9), ("VP8L", image)])) == nil)
    // Odd chunks are padded: a 3-byte unknown chunk before the image, with its padding byte.
    #expect(decodeError(riffFile([("VP8X", canvas17x9), ("ABCD", [1, 2, 3]), ("VP8L", image)])) == nil)
    #expect(decodeError(riffFile([("VP8X", Array(canvas17x9.dropLast())), ("VP8L", image)]))
        == .malformedChunk(fourCC: "VP8X", offset: 12, reason: "its payload is 9 bytes, not 10"))
    #expect(decodeError(riffFile([("VP8X", canvas17x9)])) == .missingImage)
    #expect(decodeError(riffFile([("VP8X", canvas17x9), ("ICCP", [1, 2, 3, 4])])) == .missingImage)
    #expect(decodeError(riffFile([("VP8X", [0, 0, 0, 0, 15, 0, 0, 8, 0, 0]), ("VP8L", image)]))
        == .sizeMismatch(canvasWidth: 16, canvasHeight: 9, imageWidth: 17, imageHeight: 9))
    #expect(decodeError(riffFile([("JUNK", [0, 0]), ("VP8L", image)]))
        == .malformedChunk(fourCC: "JUNK", offset: 12, reason: "the first chunk must be VP8, VP8L or VP8X"))
    // A metadata chunk over the limit is refused.
    let limits = DecodingLimits(maxChunkBytes: 3)
    #expect(decodeError(riffFile([("VP8X", canvas17x9), ("ICCP", [1, 2, 3, 4]), ("VP8L", image)]), limits: limits)
        == .limitExceeded(what: "ICCP chunk size", value: 4, limit: 3))
}

@Test func webpChecksAnimationFrames() throws {
    let file = try Fixtures.bytes("webp/animated.webp")
    let frame = try #require(payload(file, "ANMF"))
    // The first frame moved to x = 40: 30 pixels wide, it leaves the 64-pixel canvas.
    var moved = frame
    moved[0] = 20
    let canvas = try #require(payload(file, "VP8X"))
    #expect(decodeError(riffFile([("VP8X", canvas), ("ANMF", moved)]))
        == .malformedChunk(fourCC: "ANMF", offset: 30, reason: "the 30×20 frame at (40, 20) leaves the 64×48 canvas"))
    #expect(decodeError(riffFile([("VP8X", canvas), ("ANMF", Array(frame.prefix(15)))]))
        == .malformedChunk(fourCC: "ANMF", offset: 30, reason: "its payload is 15 bytes, less than the 16-byte frame header"))
}

@Test func webpChecksTheLosslessHeader() {
    var bits = LosslessBits.header(width: 1, height: 1, version: 1)
    #expect(decodeError(riffFile([("VP8L", bits.bytes)])) == .unknownLosslessVersion(1))
    bits = LosslessBits.header(width: 1, height: 1)
    bits.bytes[0] = 0x2E
    #expect(decodeError(riffFile([("VP8L", bits.bytes)])) == .badLosslessSignature(0x2E))
    #expect(decodeError(riffFile([("VP8L", [0x2F, 0, 0])])) == .truncatedLosslessData)
}

@Test func webpRefusesRepeatedTransformsAndBadCacheSizes() {
    var bits = LosslessBits.header(width: 1, height: 1)
    bits.put(1, 1)
    bits.put(2, 2)  // subtract green
    bits.put(1, 1)
    bits.put(2, 2)  // subtract green again
    #expect(decodeError(riffFile([("VP8L", bits.bytes)])) == .repeatedTransform(type: 2))
    for cacheBits in [0, 12] {
        bits = LosslessBits.header(width: 1, height: 1)
        bits.put(0, 1)
        bits.put(1, 1)
        bits.put(cacheBits, 4)
        #expect(decodeError(riffFile([("VP8L", bits.bytes)])) == .invalidColorCacheBits(cacheBits))
    }
}

/// A 1×1 image stream up to its green prefix code: no transform, no cache, no meta codes.
private func greenCodeStart() -> LosslessBits {
    var bits = LosslessBits.header(width: 1, height: 1)
    bits.put(0, 3)
    return bits
}

@Test func webpRefusesInvalidPrefixCodes() {
    var bits = greenCodeStart()
    bits.putCodeLengthCode([0, 0, 0, 0])
    #expect(decodeError(riffFile([("VP8L", bits.bytes + [0xFF])])) == .invalidPrefixCode(reason: "all 19 code lengths are zero"))
    bits = greenCodeStart()
    bits.putCodeLengthCode([1, 1, 1, 1])
    #expect(decodeError(riffFile([("VP8L", bits.bytes + [0xFF])]))
        == .invalidPrefixCode(reason: "the code lengths over-subscribe the code space at length 1"))
    bits = greenCodeStart()
    bits.putCodeLengthCode([2, 2, 0, 0])
    #expect(decodeError(riffFile([("VP8L", bits.bytes + [0xFF])])) == .invalidPrefixCode(reason: "the code lengths leave the code incomplete"))
    // Code-length code: symbol 1 → "0", symbol 18 → "1".
    bits = greenCodeStart()
    bits.putCodeLengthCode([0, 1, 0, 1])
    bits.put(1, 1)
    bits.put(7, 3)
    bits.put(300, 16)
    #expect(decodeError(riffFile([("VP8L", bits.bytes)]))
        == .invalidPrefixCode(reason: "it sends 302 code lengths for an alphabet of 280 symbols"))
    bits = greenCodeStart()
    bits.putCodeLengthCode([0, 1, 0, 1])
    bits.put(0, 1)
    for extra in [127, 127, 0] {  // 138 + 138 + 11 zeros: past symbol 279
        bits.put(1, 1)
        bits.put(extra, 7)
    }
    #expect(decodeError(riffFile([("VP8L", bits.bytes)]))
        == .invalidPrefixCode(reason: "a repeat of 11 lengths runs past the 280-symbol alphabet"))
}

@Test func webpRefusesCopiesFromBeforeTheImage() {
    // A 2×1 image whose first symbol is a backward reference (length 1, distance code 1 = one row up).
    var bits = LosslessBits.header(width: 2, height: 1)
    bits.put(0, 3)
    bits.putCodeLengthCode([0, 1, 0, 1])  // code-length code: 1 → "0", 18 → "1"
    bits.put(0, 1)                        // all 280 lengths follow
    bits.put(0, 1)                        // symbol 0: length 1
    for extra in [127, 106] {             // symbols 1…255: 138 + 117 zeros
        bits.put(1, 1)
        bits.put(extra, 7)
    }
    bits.put(0, 1)                        // symbol 256 (length prefix 0): length 1
    bits.put(1, 1)
    bits.put(12, 7)                       // symbols 257…279: 23 zeros
    for _ in 0 ..< 4 { bits.putSingleSymbolCode(0) }  // red, blue, alpha, distance
    bits.put(1, 1)                        // green symbol 256
    #expect(decodeError(riffFile([("VP8L", bits.bytes)])) == .invalidBackwardReference(pixel: 0, distance: 2, length: 1))
}

@Test func webpRefusesTruncatedLosslessData() throws {
    let image = try #require(payload(try Fixtures.bytes("webp/lossless_photo.webp"), "VP8L"))
    #expect(decodeError(riffFile([("VP8L", Array(image.prefix(image.count / 2)))])) == .truncatedLosslessData)
    #expect(decodeError(riffFile([("VP8L", Array(image.prefix(40)))])) == .truncatedLosslessData)
}

@Test func webpChecksTheLossyHeader() throws {
    let frame = try #require(payload(try Fixtures.bytes("webp/lossy_q75.webp"), "VP8 "))
    var inter = frame
    inter[0] |= 1
    #expect(decodeError(riffFile([("VP8 ", inter)])) == .invalidLossyHeader(reason: "the frame is an inter frame, not a key frame"))
    var hidden = frame
    hidden[0] &= ~0x10
    #expect(decodeError(riffFile([("VP8 ", hidden)])) == .invalidLossyHeader(reason: "the frame is marked as not shown"))
    var startCode = frame
    startCode[4] = 0
    #expect(decodeError(riffFile([("VP8 ", startCode)])) == .invalidLossyHeader(reason: "the start code is 9d 00 2a, not 9d 01 2a"))
    #expect(decodeError(riffFile([("VP8 ", Array(frame.prefix(9)))]))
        == .invalidLossyHeader(reason: "the VP8 data is 9 bytes, shorter than its 10-byte header"))
    let firstPartition = (Int(frame[0]) | Int(frame[1]) << 8 | Int(frame[2]) << 16) >> 5
    #expect(decodeError(riffFile([("VP8 ", Array(frame.prefix(20)))]))
        == .invalidLossyHeader(reason: "the first partition is \(firstPartition) bytes but only 10 follow the header"))
    #expect(decodeError(riffFile([("VP8 ", Array(frame.prefix(10 + firstPartition)))]))
        == .invalidLossyHeader(reason: "the last token partition is empty"))
    // A frame claiming 4000×4000 pixels (62500 macroblocks) with a first partition of a few hundred bytes.
    var huge = frame
    huge[6 ..< 10] = [0xA0, 0x0F, 0xA0, 0x0F]
    #expect(decodeError(riffFile([("VP8 ", huge)]), limits: DecodingLimits(maxMemoryBytes: .max))
        == .invalidLossyHeader(reason: "the first partition's \(firstPartition) bytes cannot hold the modes of 62500 macroblocks"))
}

@Test func webpRefusesTruncatedLossyData() throws {
    let frame = try #require(payload(try Fixtures.bytes("webp/lossy_200x150.webp"), "VP8 "))
    let firstPartition = (Int(frame[0]) | Int(frame[1]) << 8 | Int(frame[2]) << 16) >> 5
    guard case .truncatedLossyData(partition: 1, row: let row)? = decodeError(riffFile([("VP8 ", Array(frame.prefix(10 + firstPartition + 40)))])) else {
        Issue.record("expected the token partition to run dry")
        return
    }
    #expect(row < 10)
    // The frame tag claiming half the first partition: the modes run out part way.
    var short = frame
    let tag = (Int(frame[0]) & 0x1F) | (firstPartition / 2) << 5
    short[0 ..< 3] = [UInt8(tag & 0xFF), UInt8((tag >> 8) & 0xFF), UInt8(tag >> 16)]
    guard case .truncatedLossyData(partition: 0, row: _)? = decodeError(riffFile([("VP8 ", short)])) else {
        Issue.record("expected the first partition to run dry")
        return
    }
}

@Test func webpChecksTheAlphaChunk() throws {
    let file = try Fixtures.bytes("webp/lossy_alpha_raw.webp")
    let canvas = try #require(payload(file, "VP8X")), alpha = try #require(payload(file, "ALPH")), image = try #require(payload(file, "VP8 "))
    #expect(decodeError(riffFile([("VP8X", canvas), ("ALPH", alpha), ("VP8 ", image)])) == nil)
    var reserved = alpha
    reserved[0] |= 0x40
    #expect(decodeError(riffFile([("VP8X", canvas), ("ALPH", reserved), ("VP8 ", image)])) == .invalidAlpha(reason: "the reserved header bits are 1, not 0"))
    var method = alpha
    method[0] = method[0] & ~3 | 2
    #expect(decodeError(riffFile([("VP8X", canvas), ("ALPH", method), ("VP8 ", image)]))
        == .invalidAlpha(reason: "compression method 2 is not 0 (none) or 1 (lossless)"))
    #expect(decodeError(riffFile([("VP8X", canvas), ("ALPH", Array(alpha.prefix(100))), ("VP8 ", image)]))
        == .invalidAlpha(reason: "the raw plane is 99 bytes, less than the 3055 pixels"))
    #expect(decodeError(riffFile([("VP8X", canvas), ("ALPH", [0]), ("VP8 ", image)])) == .invalidAlpha(reason: "the chunk is 1 bytes, with no data after its header"))
}

@Test func webpChecksLimitsBeforeAllocating() throws {
    let bytes = try Fixtures.bytes("webp/lossy_200x150.webp")
    #expect(decodeError(bytes, limits: DecodingLimits(maxPixels: 1000)) == .limitExceeded(what: "pixel count", value: 200 * 150, limit: 1000))
    #expect(decodeError(bytes, limits: DecodingLimits(maxDimension: 100)) == .limitExceeded(what: "dimension", value: 200, limit: 100))
    #expect(decodeError(bytes, limits: DecodingLimits(maxInflatedBytes: 1000)) == .limitExceeded(what: "decoded size in bytes", value: 200 * 150 * 8, limit: 1000))
    #expect(decodeError(bytes, limits: DecodingLimits(maxMemoryBytes: 1000)) == .overMemoryBudget(width: 200, height: 150, budget: 1000))
    // A lossless header claiming 16384×16384 is refused by the default pixel limit.
    let huge = LosslessBits.header(width: 16384, height: 16384)
    #expect(decodeError(riffFile([("VP8L", huge.bytes + [0, 0])])) == .limitExceeded(what: "pixel count", value: 16384 * 16384, limit: 200_000_000))
    #expect(WebPError.truncatedChunk(fourCC: "VP8 ", offset: 12).description == "WebP chunk VP8  at byte 12 runs past the end of the file")
}
