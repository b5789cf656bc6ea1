import CZlib

/// Inflates a PNG's run of IDAT chunks on demand: callers pull exactly the bytes they need (a few rows
/// at a time), so the whole inflated image never sits in memory.
///
/// Holds a zlib `z_stream`; reads IDAT chunks from its own copy of the chunk reader as input runs out.
final class PNGImageDataStream {
    private let stream: UnsafeMutablePointer<z_stream>
    private var reader: PNGChunkReader
    /// Offset of the IDAT chunk being inflated (for error messages).
    private var chunkOffset: Int
    /// The first chunk after the IDAT run, once it has been read.
    private var chunkAfterRun: PNGChunk?
    private var runEnded = false
    private var streamEnded = false

    /// Starts inflating at `first`, the first IDAT chunk; `reader` is positioned just after it.
    init(first: PNGChunk, reader: PNGChunkReader) throws(PNGDataError) {
        self.reader = reader
        self.chunkOffset = first.offset
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw .corruptStream(offset: first.offset, reason: "zlib could not start (code \(status))")
        }
        feed(first)
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Fills `buffer[0..<count]` with the next inflated bytes, or throws if the data is corrupt or ends.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws {
        stream.pointee.next_out = buffer
        var remaining = count
        while remaining > 0 {
            if try streamEnded || !hasInput() {
                throw PNGDataError.truncatedImageData(offset: chunkOffset, bytesMissing: remaining)
            }
            let step = min(remaining, Int(UInt32.max))
            stream.pointee.avail_out = UInt32(step)
            let status = inflate(stream, Z_NO_FLUSH)
            remaining -= step - Int(stream.pointee.avail_out)
            try check(status)
        }
    }

    /// Confirms the stream ends here with a good Adler-32 and nothing after it, then returns the reader
    /// and the first chunk after the IDAT run (nil at the end of the file).
    func finish() throws -> (reader: PNGChunkReader, next: PNGChunk?) {
        var scratch: UInt8 = 0
        while !streamEnded {
            if try !hasInput() {
                throw PNGDataError.truncatedImageData(offset: chunkOffset, bytesMissing: 0)
            }
            try withUnsafeMutablePointer(to: &scratch) { out in
                stream.pointee.next_out = out
                stream.pointee.avail_out = 1
                let status = inflate(stream, Z_NO_FLUSH)
                if stream.pointee.avail_out == 0 { throw PNGDataError.extraImageData(offset: chunkOffset) }
                try check(status)
            }
        }
        if stream.pointee.avail_in > 0 { throw PNGDataError.extraImageData(offset: chunkOffset) }
        while try advanceToNextIDAT() {
            if stream.pointee.avail_in > 0 { throw PNGDataError.extraImageData(offset: chunkOffset) }
        }
        return (reader, chunkAfterRun)
    }

    private func feed(_ chunk: PNGChunk) {
        chunkOffset = chunk.offset
        stream.pointee.next_in = UnsafeMutablePointer(mutating: chunk.data.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(chunk.data.count)
    }

    /// True when input is waiting, reading the next IDAT of the run if needed.
    private func hasInput() throws -> Bool {
        try stream.pointee.avail_in > 0 || advanceToNextIDAT()
    }

    /// Moves to the next IDAT of the run; false once the run has ended.
    private func advanceToNextIDAT() throws -> Bool {
        if runEnded { return false }
        let chunk = try reader.next()
        guard let chunk, chunk.type == .IDAT else {
            runEnded = true
            chunkAfterRun = chunk
            return false
        }
        feed(chunk)
        return true
    }

    private func check(_ status: Int32) throws {
        switch status {
        case Z_OK, Z_BUF_ERROR:
            return
        case Z_STREAM_END:
            streamEnded = true
        case Z_DATA_ERROR where stream.pointee.msg.flatMap({ String(validatingCString: $0) }) == "incorrect data check":
            throw PNGDataError.adlerMismatch(offset: chunkOffset)
        case Z_NEED_DICT:
            throw PNGDataError.corruptStream(offset: chunkOffset, reason: "the stream asks for a preset dictionary, which PNG forbids")
        default:
            let message = stream.pointee.msg.flatMap { String(validatingCString: $0) } ?? "zlib error \(status)"
            throw PNGDataError.corruptStream(offset: chunkOffset, reason: message)
        }
    }
}
