/// An error found while splitting a PNG file into chunks: signature, chunk framing, names, CRCs, sizes.
///
/// Offsets are byte offsets into the file of the chunk's length field.
public enum PNGLexingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not start with the 8-byte PNG signature; carries what it starts with.
    case notPNG(leadingBytes: [UInt8])
    /// The file ends inside a chunk (or inside a chunk's 8-byte header, then `chunk` is nil).
    case truncatedChunk(offset: Int, chunk: String?, needed: Int, available: Int)
    /// A chunk name holds bytes other than ASCII letters.
    case invalidChunkName(offset: Int, bytes: [UInt8])
    /// A chunk declares more payload than the spec (2^31 - 1) or `DecodingLimits.maxChunkBytes` allow.
    case chunkTooLarge(offset: Int, chunk: String, length: Int, limit: Int)
    /// A critical chunk's CRC-32 does not match its bytes.
    case checksumMismatch(offset: Int, chunk: String, declared: UInt32, computed: UInt32)

    public var description: String {
        switch self {
        case .notPNG(let bytes):
            return "not a PNG file: it starts with \(hexString(bytes)) instead of the PNG signature"
        case .truncatedChunk(let offset, let chunk, let needed, let available):
            return "the file is truncated at byte \(offset): \(chunk.map { "chunk \($0)" } ?? "a chunk header") needs \(needed) bytes but only \(available) remain"
        case .invalidChunkName(let offset, let bytes):
            return "the chunk at byte \(offset) has an invalid name \(hexString(bytes)) (chunk names are four ASCII letters)"
        case .chunkTooLarge(let offset, let chunk, let length, let limit):
            return "chunk \(chunk) at byte \(offset) declares \(length) bytes, more than the limit of \(limit)"
        case .checksumMismatch(let offset, let chunk, let declared, let computed):
            return "chunk \(chunk) at byte \(offset) is corrupt: its CRC is \(hex32(declared)) but its bytes give \(hex32(computed))"
        }
    }
}

/// An error in a PNG file's structure: header fields, chunk order, palette and transparency chunks,
/// and the size limits checked before any pixel memory is allocated.
public enum PNGParsingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The first chunk is not IHDR.
    case missingIHDR(firstChunk: String)
    /// IHDR's payload is not 13 bytes.
    case invalidIHDRLength(Int)
    /// Width or height is 0 or above 2^31 - 1.
    case invalidDimensions(width: UInt32, height: UInt32)
    /// The colour type is not one of 0, 2, 3, 4, 6.
    case invalidColorType(UInt8)
    /// The bit depth is not legal for the colour type.
    case invalidBitDepth(colorType: UInt8, bitDepth: UInt8)
    /// Compression method other than 0 (deflate).
    case invalidCompressionMethod(UInt8)
    /// Filter method other than 0 (adaptive).
    case invalidFilterMethod(UInt8)
    /// Interlace method other than 0 (none) or 1 (Adam7).
    case invalidInterlaceMethod(UInt8)
    /// A chunk allowed once appears again.
    case duplicateChunk(chunk: String, offset: Int)
    /// A chunk appears where the spec forbids it.
    case chunkOutOfOrder(chunk: String, offset: Int, reason: String)
    /// A critical chunk (upper-case first letter) that this decoder does not know.
    case unknownCriticalChunk(chunk: String, offset: Int)
    /// An indexed-colour image without PLTE before its image data.
    case missingPLTE
    /// PLTE in a grey or grey+alpha image, where it is forbidden.
    case unexpectedPLTE(colorType: UInt8)
    /// PLTE's length is not a multiple of 3, or holds 0 or more than 256 entries (or more than the bit depth can index).
    case invalidPLTELength(Int)
    /// tRNS has the wrong length for the colour type, or appears in an image that has an alpha channel.
    case invalidTRNS(colorType: UInt8, length: Int)
    /// No IDAT chunk before IEND (or the end of the file).
    case missingIDAT
    /// The file ends without IEND.
    case missingIEND
    /// A grey-only decode (`PNGDecoder.decodeGray`) was asked of a file with another colour type.
    case notGray(colorType: UInt8)
    /// A size exceeds a `DecodingLimits` field (`limit` names it) or overflows.
    case limitExceeded(limit: String, value: Int, maximum: Int)
    /// A `width × height` image would take more than `budget` bytes to cut out (`MemoryBudget`).
    case overMemoryBudget(width: Int, height: Int, budget: Int)

    public var description: String {
        switch self {
        case .missingIHDR(let first): return "the first chunk is \(first), not IHDR"
        case .invalidIHDRLength(let n): return "IHDR has \(n) bytes instead of 13"
        case .invalidDimensions(let w, let h): return "the image size \(w)x\(h) is invalid (each side must be 1 to 2^31-1)"
        case .invalidColorType(let t): return "colour type \(t) is not one of 0, 2, 3, 4, 6"
        case .invalidBitDepth(let t, let d): return "bit depth \(d) is not allowed for colour type \(t)"
        case .invalidCompressionMethod(let m): return "compression method \(m) is unknown (only 0, deflate, exists)"
        case .invalidFilterMethod(let m): return "filter method \(m) is unknown (only 0 exists)"
        case .invalidInterlaceMethod(let m): return "interlace method \(m) is unknown (0 none, 1 Adam7)"
        case .duplicateChunk(let c, let o): return "chunk \(c) at byte \(o) appears a second time"
        case .chunkOutOfOrder(let c, let o, let reason): return "chunk \(c) at byte \(o) is out of order: \(reason)"
        case .unknownCriticalChunk(let c, let o): return "chunk \(c) at byte \(o) is critical but unknown"
        case .missingPLTE: return "the indexed-colour image has no PLTE chunk before its image data"
        case .unexpectedPLTE(let t): return "colour type \(t) must not have a PLTE chunk"
        case .invalidPLTELength(let n): return "PLTE has \(n) bytes, which is not a whole palette this image can use"
        case .invalidTRNS(let t, let n): return "a tRNS chunk of \(n) bytes is invalid for colour type \(t)"
        case .missingIDAT: return "the file has no image data (IDAT)"
        case .missingIEND: return "the file ends without an IEND chunk"
        case .notGray(let t): return "the image has colour type \(t), not grey (0), so it cannot be decoded as a grey image"
        case .limitExceeded(let limit, let value, let maximum):
            switch limit {
            case "width": return "the image is \(value) pixels wide, over the limit of \(maximum)"
            case "height": return "the image is \(value) pixels tall, over the limit of \(maximum)"
            default: return "the image needs \(value) \(limit), over the limit of \(maximum)"
            }
        case .overMemoryBudget(let width, let height, let budget):
            return MemoryBudget.refusal(width: width, height: height, estimate: MemoryBudget.estimate(width: width, height: height), budget: budget)
        }
    }
}

/// An error in a PNG file's compressed image data: the zlib stream, the filter bytes, and the amount of data.
///
/// `offset` is the file offset of the IDAT chunk being read when the error was found.
public enum PNGDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// zlib rejected the stream (bad header, bad block, bad distance); carries zlib's message.
    case corruptStream(offset: Int, reason: String)
    /// The zlib stream's Adler-32 does not match the inflated bytes.
    case adlerMismatch(offset: Int)
    /// The image data ends (stream end or last IDAT) before every row is complete (`bytesMissing` > 0), or
    /// before the zlib stream's end and Adler-32 (`bytesMissing` == 0).
    case truncatedImageData(offset: Int, bytesMissing: Int)
    /// The stream holds more data than the image's rows, or compressed bytes follow the stream's end.
    case extraImageData(offset: Int)
    /// A row starts with a filter type other than 0...4.
    case invalidFilterType(type: UInt8, pass: Int, row: Int)
    /// The IDAT bytes cannot possibly inflate to the image's size (deflate expands at most ~1032x): a bomb.
    case impossibleCompressionRatio(compressedBytes: Int, neededBytes: Int)

    public var description: String {
        switch self {
        case .corruptStream(let o, let r): return "the compressed image data in the IDAT at byte \(o) is corrupt: \(r)"
        case .adlerMismatch(let o): return "the compressed image data ending in the IDAT at byte \(o) fails its Adler-32 check"
        case .truncatedImageData(let o, 0):
            return "the image data ends early (IDAT at byte \(o)): the rows are complete but the zlib stream's end and Adler-32 are missing"
        case .truncatedImageData(let o, let n): return "the image data ends early (IDAT at byte \(o)): \(n) bytes of rows are missing"
        case .extraImageData(let o): return "the image data holds more than the image's rows (IDAT at byte \(o))"
        case .invalidFilterType(let t, let p, let r):
            return "row \(r) of pass \(p) has filter type \(t); only 0 to 4 exist"
        case .impossibleCompressionRatio(let c, let n):
            return "\(c) compressed bytes cannot inflate to the \(n) bytes the image needs (decompression bomb or truncated file)"
        }
    }
}

/// An error while encoding a PNG.
public enum PNGEncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The sample buffer does not hold `width * height * channels` samples.
    case sampleCountMismatch(expected: Int, actual: Int)
    /// Width or height is 0 or too large for PNG (2^31 - 1).
    case invalidDimensions(width: Int, height: Int)
    /// zlib's deflate failed with this code and message.
    case deflateFailed(code: Int32, reason: String)
    /// The compression level is outside 0...9.
    case invalidCompressionLevel(Int)
    /// The fixed filter type is not 0...4.
    case invalidFilterType(UInt8)

    public var description: String {
        switch self {
        case .sampleCountMismatch(let e, let a): return "the image has \(a) samples but its size and layout need \(e)"
        case .invalidDimensions(let w, let h): return "a PNG cannot be \(w)x\(h) (each side must be 1 to 2^31-1)"
        case .deflateFailed(let c, let r): return "zlib deflate failed (code \(c)): \(r)"
        case .invalidCompressionLevel(let l): return "compression level \(l) is outside 0...9"
        case .invalidFilterType(let t): return "filter type \(t) does not exist (0 none, 1 sub, 2 up, 3 average, 4 Paeth)"
        }
    }
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.isEmpty ? "(nothing)" : bytes.map { b in
        let s = String(b, radix: 16)
        return b < 16 ? "0" + s : s
    }.joined(separator: " ")
}

func hex32(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
}
