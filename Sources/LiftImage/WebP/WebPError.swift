/// Why a WebP file could not be decoded. Container errors name the chunk (its FourCC) and the byte
/// offset of its header in the file; bitstream errors name the rule of RFC 9649 (lossless, alpha)
/// or RFC 6386 (lossy) that the data breaks.
public enum WebPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data does not start with `RIFF`, a 32-bit size and `WEBP`.
    case notWebP
    /// The RIFF size field is below 12 (no room for one chunk header) or above 2^32 - 10.
    case invalidRIFFSize(Int)
    /// The RIFF header declares `declared` bytes after its first 8, but only `available` follow.
    case truncatedFile(declared: Int, available: Int)
    /// A chunk's header or payload runs past the end of the RIFF data.
    case truncatedChunk(fourCC: String, offset: Int)
    /// A chunk's size or contents break the container rules (`reason` says which).
    case malformedChunk(fourCC: String, offset: Int, reason: String)
    /// The file holds no `VP8 ` or `VP8L` image chunk (for an animation: no frame).
    case missingImage
    /// The VP8X canvas and the image chunk code different sizes.
    case sizeMismatch(canvasWidth: Int, canvasHeight: Int, imageWidth: Int, imageHeight: Int)
    /// A lossless (VP8L) stream does not start with the signature byte 0x2F.
    case badLosslessSignature(UInt8)
    /// A lossless stream's version field is not 0.
    case unknownLosslessVersion(Int)
    /// A lossless stream uses one transform type twice (0 predictor, 1 colour, 2 subtract green, 3 colour indexing).
    case repeatedTransform(type: Int)
    /// A colour cache size field is outside 1…11 bits.
    case invalidColorCacheBits(Int)
    /// A prefix (Huffman) code cannot be built: `reason` says how its code lengths are wrong.
    case invalidPrefixCode(reason: String)
    /// A backward reference at `pixel` copies from `distance` pixels back (before the first pixel) or
    /// `length` pixels (past the last one).
    case invalidBackwardReference(pixel: Int, distance: Int, length: Int)
    /// A lossless stream ends before all of its pixels (or prefix codes) are read.
    case truncatedLosslessData
    /// The lossy (VP8) frame header is invalid: `reason` says which field.
    case invalidLossyHeader(reason: String)
    /// Lossy data partition `partition` (0: modes, 1…8: coefficients) ends before macroblock row `row`
    /// is decoded.
    case truncatedLossyData(partition: Int, row: Int)
    /// The ALPH chunk's header or data is invalid: `reason` says how.
    case invalidAlpha(reason: String)
    /// The image would exceed one of the `DecodingLimits` (checked before allocating).
    case limitExceeded(what: String, value: Int, limit: Int)
    /// A `width × height` image would take more than `budget` bytes to cut out (`MemoryBudget`).
    case overMemoryBudget(width: Int, height: Int, budget: Int)

    public var description: String {
        switch self {
        case .notWebP:
            return "not a WebP file: it does not start with RIFF, a size and WEBP"
        case let .invalidRIFFSize(size):
            return "invalid WebP RIFF size \(size): it must be at least 12 and below 2^32 - 10"
        case let .truncatedFile(declared, available):
            return "the WebP file is truncated: its RIFF header declares \(declared) bytes but only \(available) follow"
        case let .truncatedChunk(fourCC, offset):
            return "WebP chunk \(fourCC) at byte \(offset) runs past the end of the file"
        case let .malformedChunk(fourCC, offset, reason):
            return "malformed WebP chunk \(fourCC) at byte \(offset): \(reason)"
        case .missingImage:
            return "the WebP file holds no image data (no VP8 or VP8L chunk)"
        case let .sizeMismatch(canvasWidth, canvasHeight, imageWidth, imageHeight):
            return "the WebP canvas is \(canvasWidth)×\(canvasHeight) but its image data is \(imageWidth)×\(imageHeight)"
        case let .badLosslessSignature(byte):
            return "the lossless WebP data starts with \(hexString([byte])) instead of the signature 2F"
        case let .unknownLosslessVersion(version):
            return "the lossless WebP data has version \(version); only version 0 exists"
        case let .repeatedTransform(type):
            return "the lossless WebP data uses transform \(type) (\(Self.transformName(type))) twice"
        case let .invalidColorCacheBits(bits):
            return "the lossless WebP data asks for a colour cache of \(bits) bits; 1 to 11 are allowed"
        case let .invalidPrefixCode(reason):
            return "invalid prefix code in lossless WebP data: \(reason)"
        case let .invalidBackwardReference(pixel, distance, length):
            return "lossless WebP backward reference at pixel \(pixel) copies \(length) pixels from \(distance) back, outside the image"
        case .truncatedLosslessData:
            return "the lossless WebP data ends before the image is complete"
        case let .invalidLossyHeader(reason):
            return "invalid lossy WebP (VP8) header: \(reason)"
        case let .truncatedLossyData(partition, row):
            return "the lossy WebP data ends early: partition \(partition) is exhausted at macroblock row \(row)"
        case let .invalidAlpha(reason):
            return "invalid WebP alpha (ALPH) data: \(reason)"
        case let .limitExceeded(what, value, limit):
            return "WebP \(what) is \(value), above the limit of \(limit)"
        case let .overMemoryBudget(width, height, budget):
            return MemoryBudget.refusal(width: width, height: height, estimate: MemoryBudget.estimate(width: width, height: height), budget: budget)
        }
    }

    /// The RFC's name for lossless transform `type`.
    private static func transformName(_ type: Int) -> String {
        ["predictor", "colour", "subtract green", "colour indexing"][type & 3]
    }
}
