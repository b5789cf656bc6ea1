/// The chunks of a WebP file that decoding uses, found by walking its RIFF container (RFC 9649 §2):
/// the simple formats (`VP8 ` or `VP8L` right after the header) and the extended one (`VP8X`, then
/// `ICCP`, `ANIM`/`ANMF` or `ALPH` + image, then `EXIF`/`XMP `). Offsets and ranges index the file.
///
/// As in libwebp, the RIFF size may be smaller than the file (trailing bytes are ignored) but not
/// larger, chunk payloads are padded to an even size, and the image chunk ends the part of the file
/// that must be well formed: the chunks after it are read only for metadata, and a damaged one there
/// ends that reading without failing the decode (dwebp never looks at them).
struct WebPContainer {
    /// The coding of an image chunk.
    enum Bitstream: Equatable {
        /// `VP8 `: a VP8 key frame (RFC 6386), alpha in an optional `ALPH` chunk.
        case lossy
        /// `VP8L`: the lossless format (RFC 9649 §3), alpha included.
        case lossless
    }

    /// One still image: its chunk and the `ALPH` chunk that belongs to it.
    struct Image {
        var bitstream: Bitstream
        /// The image chunk's payload.
        var data: Range<Int>
        /// The payload of the `ALPH` chunk before a `VP8 ` chunk (nil when absent or when lossless).
        var alpha: Range<Int>?
        /// Byte offset of the image chunk's header, for errors.
        var offset: Int
    }

    /// Where the first frame of an animation lies on the canvas (`ANMF`), in pixels.
    struct Frame: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// The VP8X canvas size in pixels (nil in the simple formats).
    var canvas: (width: Int, height: Int)?
    /// The still image, or the first frame's image for an animation.
    var image: Image
    /// The first frame's placement when the file is an animation.
    var firstFrame: Frame?
    /// Number of `ANMF` frames (0 for a still image).
    var frameCount = 0
    /// The `ICCP` payload, if any.
    var iccProfile: Range<Int>?
    /// The `EXIF` payload, if any.
    var exif: Range<Int>?

    /// Size of a chunk header: FourCC and little-endian 32-bit payload size.
    static let chunkHeaderSize = 8
    /// VP8X's flag for an animation.
    static let animationFlag: UInt8 = 0x02

    /// Walks `file`'s chunks.
    /// - Throws: `WebPError` for a missing signature, an inconsistent RIFF size, a chunk running past
    ///   the data, a malformed `VP8X`/`ANMF` chunk or a file without image data.
    init(_ file: UnsafeBufferPointer<UInt8>, limits: DecodingLimits) throws(WebPError) {
        guard file.count >= 8, Self.fourCC(file, 0) == "RIFF" else { throw .notWebP }
        let riffSize = Int(Self.le32(file, 4))
        guard file.count >= 12 else { throw .truncatedFile(declared: riffSize, available: file.count - 8) }
        guard Self.fourCC(file, 8) == "WEBP" else { throw .notWebP }
        guard riffSize >= 12, riffSize <= Int(UInt32.max) - 10 else { throw .invalidRIFFSize(riffSize) }
        guard riffSize <= file.count - 8 else { throw .truncatedFile(declared: riffSize, available: file.count - 8) }
        var walker = ChunkWalker(file: file, end: 8 + riffSize, position: 12)
        let first = try walker.next()
        switch first.fourCC {
        case "VP8 ", "VP8L":
            image = Image(bitstream: first.fourCC == "VP8L" ? .lossless : .lossy, data: first.payload, alpha: nil, offset: first.offset)
            return
        case "VP8X":
            break
        default:
            throw .malformedChunk(fourCC: first.fourCC, offset: first.offset, reason: "the first chunk must be VP8, VP8L or VP8X")
        }
        guard first.payload.count == 10 else {
            throw .malformedChunk(fourCC: "VP8X", offset: first.offset, reason: "its payload is \(first.payload.count) bytes, not 10")
        }
        let flags = file[first.payload.lowerBound]
        let width = 1 + Self.le24(file, first.payload.lowerBound + 4), height = 1 + Self.le24(file, first.payload.lowerBound + 7)
        guard width * height <= Int(UInt32.max) else {
            throw .malformedChunk(fourCC: "VP8X", offset: first.offset, reason: "the canvas \(width)×\(height) has 2^32 pixels or more")
        }
        canvas = (width, height)
        let animated = flags & Self.animationFlag != 0
        var metadata = Metadata()
        var found: Image?
        var alpha: Range<Int>?
        // Until the image: everything must be well formed.
        while found == nil {
            guard !walker.atEnd else { throw .missingImage }
            let chunk = try walker.next()
            try metadata.keep(chunk, limits: limits)
            switch chunk.fourCC {
            case "ALPH" where !animated:
                alpha = chunk.payload
            case "VP8 " where !animated, "VP8L" where !animated:
                let lossless = chunk.fourCC == "VP8L"
                found = Image(bitstream: lossless ? .lossless : .lossy, data: chunk.payload, alpha: lossless ? nil : alpha, offset: chunk.offset)
            case "ANMF" where animated:
                frameCount = 1
                let (frame, frameImage) = try Self.parseFrame(file, chunk: chunk, canvasWidth: width, canvasHeight: height)
                firstFrame = frame
                found = frameImage
            default:
                break // ANIM, XMP and unknown chunks carry nothing the pixels need.
            }
        }
        guard let found else { throw .missingImage }
        image = found
        // After the image: metadata and the remaining frames, read leniently.
        while !walker.atEnd, let chunk = try? walker.next() {
            try? metadata.keep(chunk, limits: limits)
            if animated && chunk.fourCC == "ANMF" { frameCount += 1 }
        }
        iccProfile = metadata.iccProfile
        exif = metadata.exif
    }

    /// The first `ICCP` and `EXIF` payloads met while walking.
    private struct Metadata {
        var iccProfile: Range<Int>?
        var exif: Range<Int>?

        /// Records `chunk` if it is the first `ICCP` or `EXIF`; a payload over `maxChunkBytes` is refused.
        mutating func keep(_ chunk: Chunk, limits: DecodingLimits) throws(WebPError) {
            guard chunk.fourCC == "ICCP" || chunk.fourCC == "EXIF" else { return }
            guard chunk.payload.count <= limits.maxChunkBytes else {
                throw .limitExceeded(what: "\(chunk.fourCC) chunk size", value: chunk.payload.count, limit: limits.maxChunkBytes)
            }
            if chunk.fourCC == "ICCP", iccProfile == nil { iccProfile = chunk.payload }
            if chunk.fourCC == "EXIF", exif == nil { exif = chunk.payload }
        }
    }

    /// An `ANMF` chunk's placement (16-byte header: x/2, y/2, width - 1, height - 1, duration as
    /// 24-bit fields, then flags) and its image (optional `ALPH`, then `VP8 ` or `VP8L`).
    private static func parseFrame(_ file: UnsafeBufferPointer<UInt8>, chunk: Chunk, canvasWidth: Int,
                                   canvasHeight: Int) throws(WebPError) -> (Frame, Image) {
        guard chunk.payload.count >= 16 else {
            throw .malformedChunk(fourCC: "ANMF", offset: chunk.offset, reason: "its payload is \(chunk.payload.count) bytes, less than the 16-byte frame header")
        }
        let p = chunk.payload.lowerBound
        let frame = Frame(x: 2 * le24(file, p), y: 2 * le24(file, p + 3), width: 1 + le24(file, p + 6), height: 1 + le24(file, p + 9))
        guard frame.x + frame.width <= canvasWidth, frame.y + frame.height <= canvasHeight else {
            throw .malformedChunk(fourCC: "ANMF", offset: chunk.offset,
                                  reason: "the \(frame.width)×\(frame.height) frame at (\(frame.x), \(frame.y)) leaves the \(canvasWidth)×\(canvasHeight) canvas")
        }
        var walker = ChunkWalker(file: file, end: chunk.payload.upperBound, position: p + 16)
        var alpha: Range<Int>?
        while !walker.atEnd {
            let inner = try walker.next()
            switch inner.fourCC {
            case "ALPH": alpha = inner.payload
            case "VP8 ": return (frame, Image(bitstream: .lossy, data: inner.payload, alpha: alpha, offset: inner.offset))
            case "VP8L": return (frame, Image(bitstream: .lossless, data: inner.payload, alpha: nil, offset: inner.offset))
            default: break
            }
        }
        throw .missingImage
    }

    /// A chunk: its FourCC, header offset and payload.
    struct Chunk {
        var fourCC: String
        var offset: Int
        var payload: Range<Int>
    }

    /// Steps through consecutive chunks between `position` and `end`.
    struct ChunkWalker {
        let file: UnsafeBufferPointer<UInt8>
        let end: Int
        var position: Int

        var atEnd: Bool { position >= end }

        /// The chunk at `position`; moves past its payload and padding byte (a missing padding byte
        /// at the very end is tolerated, as libwebp does).
        mutating func next() throws(WebPError) -> Chunk {
            guard position + WebPContainer.chunkHeaderSize <= end else {
                let name = position + 4 <= end ? WebPContainer.fourCC(file, position) : "chunk header"
                throw .truncatedChunk(fourCC: name, offset: position)
            }
            let name = WebPContainer.fourCC(file, position)
            let size = Int(WebPContainer.le32(file, position + 4))
            let start = position + WebPContainer.chunkHeaderSize
            guard size <= end - start else { throw .truncatedChunk(fourCC: name, offset: position) }
            let chunk = Chunk(fourCC: name, offset: position, payload: start ..< start + size)
            position = min(end, start + size + (size & 1))
            return chunk
        }
    }

    /// The four bytes at `offset` as text (non-printable bytes as `?`).
    static func fourCC(_ file: UnsafeBufferPointer<UInt8>, _ offset: Int) -> String {
        String(decoding: (0 ..< 4).map { file[offset + $0] >= 0x20 && file[offset + $0] < 0x7F ? file[offset + $0] : 0x3F }, as: UTF8.self)
    }

    /// Little-endian 32-bit value at `offset`.
    static func le32(_ file: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
        UInt32(file[offset]) | UInt32(file[offset + 1]) << 8 | UInt32(file[offset + 2]) << 16 | UInt32(file[offset + 3]) << 24
    }

    /// Little-endian 24-bit value at `offset`.
    static func le24(_ file: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int {
        Int(file[offset]) | Int(file[offset + 1]) << 8 | Int(file[offset + 2]) << 16
    }
}
