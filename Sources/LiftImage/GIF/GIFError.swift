/// Why a GIF could not be decoded. Cases name the part of the file and the byte offset where the
/// problem was found, so a person can look at the bytes.
public enum GIFError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data does not start with `GIF87a` or `GIF89a`; carries the first bytes seen.
    case notGIF(leadingBytes: [UInt8])
    /// The data ended inside `part` (the header, a colour table, a block), which starts at `offset`.
    case truncated(part: String, offset: Int)
    /// A block is malformed (a graphic control extension shorter than 4 bytes, …).
    case malformedBlock(part: String, offset: Int, reason: String)
    /// A frame's LZW minimum code size is outside 2...8 (GIF allows 2...8 bits per pixel index).
    case invalidCodeSize(frame: Int, offset: Int, codeSize: Int)
    /// A frame's LZW data cannot be decoded: a code that is not in the dictionary yet, or a string
    /// code right after a clear code.
    case corruptData(frame: Int, offset: Int, reason: String)
    /// The file has no image (no image descriptor before its end).
    case noImage(offset: Int)
    /// Frame `requested` was asked for; the file has `frameCount` frames.
    case frameOutOfRange(requested: Int, frameCount: Int)
    /// The canvas has no pixels (a zero width or height even after the first frame's extent).
    case emptyImage(width: Int, height: Int)
    /// The image would exceed one of the `DecodingLimits`, or `GIFDecoder.maxFrames` (checked before
    /// allocating or decoding).
    case limitExceeded(what: String, value: Int, limit: Int)
    /// A `width × height` canvas would take more than `budget` bytes to cut out (`MemoryBudget`).
    case overMemoryBudget(width: Int, height: Int, budget: Int)

    public var description: String {
        switch self {
        case .notGIF(let bytes):
            return "not a GIF file: it starts with \(hexString(bytes)), not GIF87a or GIF89a"
        case let .truncated(part, offset):
            return "GIF data ends early inside the \(part) at byte \(offset)"
        case let .malformedBlock(part, offset, reason):
            return "malformed GIF \(part) at byte \(offset): \(reason)"
        case let .invalidCodeSize(frame, offset, codeSize):
            return "GIF frame \(frame) (at byte \(offset)) has an LZW minimum code size of \(codeSize); GIF allows 2...8"
        case let .corruptData(frame, offset, reason):
            return "corrupt LZW data in GIF frame \(frame) (at byte \(offset)): \(reason)"
        case let .noImage(offset):
            return "GIF ends at byte \(offset) without an image"
        case let .frameOutOfRange(requested, frameCount):
            return "GIF frame \(requested) was asked for, but the file has \(frameCount) frame\(frameCount == 1 ? "" : "s") (numbered from 0)"
        case let .emptyImage(width, height):
            return "the GIF's canvas is \(width)x\(height): it has no pixels"
        case let .limitExceeded(what, value, limit):
            return "GIF \(what) is \(value), above the limit of \(limit)"
        case let .overMemoryBudget(width, height, budget):
            return MemoryBudget.refusal(width: width, height: height, estimate: MemoryBudget.estimate(width: width, height: height), budget: budget)
        }
    }
}
