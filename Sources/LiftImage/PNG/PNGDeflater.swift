import CZlib

/// A zlib deflate stream that hands its output to a sink in pieces of at most `pieceBytes`, so the encoder
/// can write each piece as one IDAT chunk without holding the whole compressed stream twice.
final class PNGDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let piece: UnsafeMutablePointer<UInt8>
    private let pieceBytes: Int

    /// Starts a zlib stream (32 KiB window, memLevel 9) at `level` 0...9 with a zlib `strategy` constant.
    init(level: Int, strategy: Int32, pieceBytes: Int = 256 << 10) throws(PNGEncodingError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.pieceBytes = pieceBytes
        piece = .allocate(capacity: pieceBytes)
        let status = deflateInit2_(stream, Int32(level), Z_DEFLATED, 15, 9, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            piece.deallocate()
            throw .deflateFailed(code: status, reason: "deflateInit2 failed")
        }
        stream.pointee.next_out = piece
        stream.pointee.avail_out = UInt32(pieceBytes)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        piece.deallocate()
    }

    /// Compresses `bytes[0..<count]`; `finish` ends the stream. Full pieces go to `sink`, and at the end
    /// the last partial piece too.
    func compress(_ bytes: UnsafePointer<UInt8>, count: Int, finish: Bool, sink: (UnsafeBufferPointer<UInt8>) -> Void) throws(PNGEncodingError) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes)
        stream.pointee.avail_in = UInt32(count)
        while true {
            let status = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw .deflateFailed(code: status, reason: stream.pointee.msg.flatMap { String(validatingCString: $0) } ?? "deflate error")
            }
            if stream.pointee.avail_out == 0 || (status == Z_STREAM_END && stream.pointee.avail_out < pieceBytes) {
                sink(UnsafeBufferPointer(start: piece, count: pieceBytes - Int(stream.pointee.avail_out)))
                stream.pointee.next_out = piece
                stream.pointee.avail_out = UInt32(pieceBytes)
            }
            if status == Z_STREAM_END { return }
            if !finish && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
        }
    }
}
