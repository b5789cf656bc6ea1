import CZlib

/// A raw deflate stream (no zlib header or trailer) that compresses one segment of a PNG's filtered
/// image data at a time, primed with the bytes that precede the segment as its dictionary.
///
/// Segments compressed this way and ended with a sync flush (the last with a final block) concatenate
/// into one valid deflate stream whose back-references may reach into the previous segment, exactly as
/// pigz does: the result is as small as one serial stream, within a few bytes per segment.
final class PNGDeflater {
    private let stream: UnsafeMutablePointer<z_stream>

    /// Starts a raw deflate stream (32 KiB window, memLevel 9) at `level` 0...9 with a zlib `strategy` constant.
    init(level: Int, strategy: Int32) throws(PNGEncodingError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(stream, Int32(level), Z_DEFLATED, -15, 9, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw .deflateFailed(code: status, reason: "deflateInit2 failed")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `segment` after priming the window with `dictionary` (the up to 32 KiB of data just
    /// before it; empty for the first segment). A non-final segment ends with a sync flush (byte
    /// aligned, not final); the final one ends the deflate stream.
    func compress(_ segment: UnsafeBufferPointer<UInt8>, dictionary: UnsafeBufferPointer<UInt8>, final: Bool) throws(PNGEncodingError) -> [UInt8] {
        var status = deflateReset(stream)
        if status == Z_OK, let base = dictionary.baseAddress, !dictionary.isEmpty {
            status = deflateSetDictionary(stream, base, UInt32(dictionary.count))
        }
        guard status == Z_OK else { throw failure(status) }
        // deflateBound covers a complete stream; a sync flush adds at most a few bytes more.
        let capacity = Int(deflateBound(stream, UInt(segment.count))) + 16
        var output = [UInt8](repeating: 0, count: capacity)
        var produced = 0
        try output.withUnsafeMutableBufferPointer { (out: inout UnsafeMutableBufferPointer<UInt8>) throws(PNGEncodingError) in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: segment.baseAddress)
            stream.pointee.avail_in = UInt32(segment.count)
            stream.pointee.next_out = out.baseAddress
            stream.pointee.avail_out = UInt32(capacity)
            let flush = final ? Z_FINISH : Z_SYNC_FLUSH
            let status = deflate(stream, flush)
            let done = final ? status == Z_STREAM_END : (status == Z_OK && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0)
            guard done else { throw failure(status == Z_OK ? Z_BUF_ERROR : status) }
            produced = capacity - Int(stream.pointee.avail_out)
        }
        // A copy of just the bytes produced: trimming in place would keep deflateBound's capacity
        // alive in every segment's piece until the file is assembled (48 MB for a 12 MP cut-out).
        return Array(output[..<produced])
    }

    private func failure(_ status: Int32) -> PNGEncodingError {
        .deflateFailed(code: status, reason: stream.pointee.msg.flatMap { String(validatingCString: $0) } ?? "deflate error")
    }
}
