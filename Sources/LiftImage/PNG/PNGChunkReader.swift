import CZlib

/// A four-letter PNG chunk type, held as its big-endian 32-bit value.
struct PNGChunkType: Equatable, Hashable, Sendable, CustomStringConvertible {
    let value: UInt32

    init(_ value: UInt32) { self.value = value }

    init(_ name: StaticString) {
        precondition(name.utf8CodeUnitCount == 4, "chunk names have four letters")
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(name.utf8Start[i]) }
        value = v
    }

    static let IHDR = PNGChunkType("IHDR"), PLTE = PNGChunkType("PLTE"), IDAT = PNGChunkType("IDAT")
    static let IEND = PNGChunkType("IEND"), tRNS = PNGChunkType("tRNS"), gAMA = PNGChunkType("gAMA")
    static let sRGB = PNGChunkType("sRGB"), iCCP = PNGChunkType("iCCP"), pHYs = PNGChunkType("pHYs")
    static let eXIf = PNGChunkType("eXIf"), cHRM = PNGChunkType("cHRM"), sBIT = PNGChunkType("sBIT")

    /// Critical chunks have an upper-case first letter (bit 5 of the first byte clear).
    var isCritical: Bool { value & 0x2000_0000 == 0 }

    var bytes: [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// One chunk located in the file: `offset` is where its length field starts, `data` its payload.
struct PNGChunk {
    let type: PNGChunkType
    let offset: Int
    let data: UnsafeRawBufferPointer
}

/// The 8-byte signature every PNG file starts with.
let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// Splits a PNG file held in memory into chunks, checking framing, names, sizes and CRCs.
///
/// A critical chunk with a bad CRC throws; an ancillary one with a bad CRC is skipped (as libpng does).
struct PNGChunkReader {
    let file: UnsafeRawBufferPointer
    private let maxChunkBytes: Int
    /// Offset of the next chunk's length field.
    private(set) var position: Int

    /// Checks the signature and positions the reader on the first chunk.
    init(file: UnsafeRawBufferPointer, limits: DecodingLimits) throws(PNGLexingError) {
        guard file.count >= 8, file.prefix(8).elementsEqual(pngSignature) else {
            throw .notPNG(leadingBytes: Array(file.prefix(8)))
        }
        self.file = file
        self.maxChunkBytes = min(limits.maxChunkBytes, Int(Int32.max))
        self.position = 8
    }

    /// The next intact chunk, or nil at the end of the file.
    mutating func next() throws(PNGLexingError) -> PNGChunk? {
        while true {
            let offset = position
            let available = file.count &- offset
            if available == 0 { return nil }
            guard available >= 8 else { throw .truncatedChunk(offset: offset, chunk: nil, needed: 8, available: available) }
            let length = Int(file.bigEndianUInt32(at: offset))
            let typeValue = file.bigEndianUInt32(at: offset + 4)
            let type = PNGChunkType(typeValue)
            guard type.bytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw .invalidChunkName(offset: offset, bytes: type.bytes)
            }
            guard length <= maxChunkBytes else {
                throw .chunkTooLarge(offset: offset, chunk: type.description, length: length, limit: maxChunkBytes)
            }
            guard available - 12 >= length else {
                throw .truncatedChunk(offset: offset, chunk: type.description, needed: length + 12, available: available)
            }
            let crcBytes = UnsafeRawBufferPointer(rebasing: file[(offset + 4)..<(offset + 8 + length)])
            let declared = file.bigEndianUInt32(at: offset + 8 + length)
            let computed = UInt32(crc32(0, crcBytes.baseAddress?.assumingMemoryBound(to: Bytef.self), UInt32(crcBytes.count)))
            position = offset + 12 + length
            if declared != computed {
                if type.isCritical {
                    throw .checksumMismatch(offset: offset, chunk: type.description, declared: declared, computed: computed)
                }
                continue
            }
            return PNGChunk(type: type, offset: offset, data: UnsafeRawBufferPointer(rebasing: file[(offset + 8)..<(offset + 8 + length)]))
        }
    }
}

extension UnsafeRawBufferPointer {
    /// The big-endian UInt32 at `offset` (caller guarantees 4 bytes are there).
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    /// The big-endian UInt16 at `offset` (caller guarantees 2 bytes are there).
    func bigEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }
}

extension PNGChunkReader {
    /// Total payload bytes of the run of consecutive IDAT chunks that starts with `first` (the chunk just
    /// read), from the chunk headers alone; stops at the first chunk that is not IDAT or does not fit.
    func idatRunLength(after first: PNGChunk) -> Int {
        var total = first.data.count
        var offset = position
        while file.count - offset >= 12 {
            let length = Int(file.bigEndianUInt32(at: offset))
            guard file.bigEndianUInt32(at: offset + 4) == PNGChunkType.IDAT.value, length <= file.count - offset - 12 else { break }
            total += length
            offset += 12 + length
        }
        return total
    }
}
