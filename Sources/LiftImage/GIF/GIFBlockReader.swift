/// A colour table as the decoder uses it: 256 little-endian RGBA words (R in the low byte, alpha
/// 255). Indices past the file's table are black; a frame with no table at all, or with a table
/// that is the grey ramp `(i, i, i)`, reads every index `i` as grey `(i, i, i)`. Both are what Pillow
/// shows for such indices (it reads a grey-ramp table as a grey image).
struct GIFPalette: Equatable {
    let colors: [UInt32]

    /// The table of RGB triples in `bytes` (empty: no table).
    init(_ bytes: ArraySlice<UInt8>) {
        let entries = min(bytes.count / 3, 256)
        let table = (0 ..< entries).map { i in
            let base = bytes.startIndex + i * 3
            return UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16 | 0xFF00_0000
        }
        let ramp = (0 ..< 256).map { UInt32($0) * 0x0001_0101 | 0xFF00_0000 }
        colors = table.elementsEqual(ramp.prefix(entries)) ? ramp : table + Array(repeating: 0xFF00_0000, count: 256 - entries)
    }
}

/// One image of a GIF with what its graphic control extension said about it.
struct GIFFrame {
    /// The frame's number, from 0.
    let index: Int
    /// Byte offset of its image descriptor.
    let offset: Int
    /// Position and size on the canvas, in pixels.
    let left: Int
    let top: Int
    let width: Int
    let height: Int
    /// Rows stored in the four interlace passes (every 8th from 0, every 8th from 4, every 4th
    /// from 2, every 2nd from 1).
    let interlaced: Bool
    /// The local colour table, else the global one, else the grey ramp.
    let palette: GIFPalette
    /// The index drawn as transparent, if any.
    let transparentIndex: Int?
    /// What happens to the frame's area before the next frame: 0 or 1 keep it, 2 clears it, 3
    /// restores what was there before; other values keep it.
    let disposal: Int
    /// The LZW minimum code size byte.
    let codeSize: Int
    /// The LZW data: the sub-blocks' payloads joined.
    let data: [UInt8]
    /// True when the file ended inside the sub-blocks (`data` holds what was there).
    let dataTruncated: Bool
}

/// Walks a GIF's blocks: the header and logical screen, then extensions and images one at a time
/// (bytes between blocks that introduce none are skipped, as Pillow does; a missing trailer is
/// the end).
struct GIFBlockReader {
    let bytes: [UInt8]
    /// Logical screen size in pixels.
    let screenWidth: Int
    let screenHeight: Int
    let globalPalette: GIFPalette?
    private(set) var position: Int
    private(set) var framesRead = 0

    init(_ bytes: [UInt8]) throws(GIFError) {
        self.bytes = bytes
        let signature = bytes.prefix(6)
        guard signature.elementsEqual("GIF87a".utf8) || signature.elementsEqual("GIF89a".utf8) else {
            throw .notGIF(leadingBytes: Array(bytes.prefix(8)))
        }
        guard bytes.count >= 13 else { throw .truncated(part: "logical screen descriptor", offset: 6) }
        screenWidth = Int(bytes[6]) | Int(bytes[7]) << 8
        screenHeight = Int(bytes[8]) | Int(bytes[9]) << 8
        let flags = bytes[10]
        var position = 13
        globalPalette = flags & 0x80 != 0 ? try Self.colorTable(bytes, at: &position, sizeBits: flags & 7, part: "global colour table") : nil
        self.position = position
    }

    private static func colorTable(_ bytes: [UInt8], at position: inout Int, sizeBits: UInt8, part: String) throws(GIFError) -> GIFPalette {
        let length = 3 << (Int(sizeBits) + 1)
        guard position + length <= bytes.count else { throw .truncated(part: part, offset: position) }
        defer { position += length }
        return GIFPalette(bytes[position ..< position + length])
    }

    /// The next image, or nil at the trailer or the end of the data.
    /// - Parameter withData: join the frame's LZW sub-blocks (false: only skip them, for counting).
    mutating func nextFrame(withData: Bool) throws(GIFError) -> GIFFrame? {
        var transparentIndex: Int?
        var disposal = 0
        while position < bytes.count {
            let introducer = bytes[position]
            switch introducer {
            case 0x3B:
                return nil
            case 0x21:
                let start = position
                guard position + 1 < bytes.count else { throw .truncated(part: "extension", offset: start) }
                let label = bytes[position + 1]
                position += 2
                if label == 0xF9 {
                    guard position < bytes.count else { throw .truncated(part: "graphic control extension", offset: start) }
                    let size = Int(bytes[position])
                    guard size >= 4 else {
                        throw .malformedBlock(part: "graphic control extension", offset: start, reason: "it holds \(size) bytes, not 4")
                    }
                    guard position + 5 <= bytes.count else { throw .truncated(part: "graphic control extension", offset: start) }
                    let flags = bytes[position + 1]
                    disposal = Int(flags >> 2 & 7)
                    transparentIndex = flags & 1 != 0 ? Int(bytes[position + 4]) : nil
                }
                let skipped = skipSubBlocks(collect: false)
                if skipped.truncated { throw .truncated(part: "extension", offset: start) }
            case 0x2C:
                return try image(transparentIndex: transparentIndex, disposal: disposal, withData: withData)
            default:
                position += 1
            }
        }
        return nil
    }

    /// Reads the image descriptor at `position`, its local table and its data.
    private mutating func image(transparentIndex: Int?, disposal: Int, withData: Bool) throws(GIFError) -> GIFFrame {
        let start = position
        guard position + 10 <= bytes.count else { throw .truncated(part: "image descriptor", offset: start) }
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let flags = bytes[position + 9]
        position += 10
        var palette = globalPalette ?? GIFPalette([])
        if flags & 0x80 != 0 {
            palette = try Self.colorTable(bytes, at: &position, sizeBits: flags & 7, part: "local colour table")
        }
        guard position < bytes.count else { throw .truncated(part: "image data", offset: start) }
        let codeSize = Int(bytes[position])
        position += 1
        let data = skipSubBlocks(collect: withData)
        defer { framesRead += 1 }
        return GIFFrame(index: framesRead, offset: start, left: word(start + 1), top: word(start + 3), width: word(start + 5),
                        height: word(start + 7), interlaced: flags & 0x40 != 0, palette: palette, transparentIndex: transparentIndex,
                        disposal: disposal, codeSize: codeSize, data: data.bytes, dataTruncated: data.truncated)
    }

    /// Moves past a chain of sub-blocks (a length byte, that many bytes, … a zero length).
    /// - Returns: their payloads joined when `collect`, and whether the data ended inside the chain.
    private mutating func skipSubBlocks(collect: Bool) -> (bytes: [UInt8], truncated: Bool) {
        var joined: [UInt8] = []
        while position < bytes.count {
            let size = Int(bytes[position])
            position += 1
            if size == 0 { return (joined, false) }
            let end = min(position + size, bytes.count)
            if collect { joined += bytes[position ..< end] }
            position = end
        }
        return (joined, true)
    }
}
