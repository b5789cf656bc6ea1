/// Why a JPEG could not be decoded. Every case names the marker (`"SOF0"`, `"DHT"`, `"SOS"`, …) and
/// the byte offset in the file where the problem was found, so a person can look at the bytes.
public enum JPEGError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data does not start with the SOI marker `FF D8`.
    case notJPEG
    /// The data ended inside a segment or inside the entropy-coded data of a scan.
    case truncated(marker: String, offset: Int)
    /// A marker segment is malformed (bad length, impossible field value, duplicate frame…).
    case malformedSegment(marker: String, offset: Int, reason: String)
    /// The entropy-coded data of a scan cannot be decoded (bad Huffman code, missing restart marker…).
    case corruptData(marker: String, offset: Int, reason: String)
    /// A valid JPEG feature Lift does not decode: arithmetic coding, 12-bit samples, lossless or
    /// hierarchical frames, an unknown colour space or non-integral sampling ratios.
    case unsupported(marker: String, offset: Int, feature: String)
    /// A scan refers to a Huffman or quantisation table that was never defined.
    case missingTable(marker: String, offset: Int, kind: String, id: Int)
    /// The image would exceed one of the `DecodingLimits` (checked before allocating).
    case limitExceeded(what: String, value: Int, limit: Int)
    /// A `width × height` frame would take more than `budget` bytes to cut out (`MemoryBudget`).
    case overMemoryBudget(width: Int, height: Int, budget: Int)
    /// The file has no frame (`SOFn`) or no scan before it ends.
    case noImageData(offset: Int)

    public var description: String {
        switch self {
        case .notJPEG:
            return "not a JPEG file: it does not start with the SOI marker FF D8"
        case let .truncated(marker, offset):
            return "JPEG data ends early inside \(marker) (segment at byte \(offset))"
        case let .malformedSegment(marker, offset, reason):
            return "malformed JPEG \(marker) segment at byte \(offset): \(reason)"
        case let .corruptData(marker, offset, reason):
            return "corrupt JPEG data in \(marker) at byte \(offset): \(reason)"
        case let .unsupported(marker, offset, feature):
            return "unsupported JPEG feature in \(marker) at byte \(offset): \(feature)"
        case let .missingTable(marker, offset, kind, id):
            return "JPEG \(marker) at byte \(offset) uses \(kind) table \(id), which was never defined"
        case let .limitExceeded(what, value, limit):
            return "JPEG \(what) is \(value), above the limit of \(limit)"
        case let .overMemoryBudget(width, height, budget):
            return MemoryBudget.refusal(width: width, height: height, estimate: MemoryBudget.estimate(width: width, height: height), budget: budget)
        case let .noImageData(offset):
            return "JPEG ends at byte \(offset) without a frame and a scan"
        }
    }
}
