import CZlib

extension PNGColorProfile {
    /// The ICC profile inside an `iCCP` payload (name, NUL, method 0, zlib stream), inflated; nil
    /// when the payload is malformed or the profile is over `maxProfileBytes`. WebP stores profiles
    /// uncompressed (`ICCP` chunk), so a photo's colour description (`DecodedPhoto.color`) goes into a
    /// WebP file through this.
    public static func profile(fromChunk payload: [UInt8]) -> [UInt8]? {
        guard let nul = payload.prefix(80).firstIndex(of: 0), nul + 2 < payload.count, payload[nul + 1] == 0 else { return nil }
        let compressed = Array(payload[(nul + 2)...])
        // zlib keeps the stream's address from init to end, so it lives at one heap address.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(stream) }
        var profile: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        let finished: Bool = compressed.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = UInt32(input.count)
            while true {
                let (status, produced): (Int32, Int) = piece.withUnsafeMutableBufferPointer { output in
                    stream.pointee.next_out = output.baseAddress
                    stream.pointee.avail_out = UInt32(output.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    return (status, output.count - Int(stream.pointee.avail_out))
                }
                profile += piece[..<produced]
                guard profile.count <= maxProfileBytes else { return false }
                if status == Z_STREAM_END { return true }
                guard status == Z_OK, produced > 0 || stream.pointee.avail_in > 0 else { return false }
            }
        }
        return finished && !profile.isEmpty ? profile : nil
    }
}
