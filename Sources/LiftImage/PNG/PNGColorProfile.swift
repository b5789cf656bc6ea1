import CZlib

/// ICC profiles in PNG's `iCCP` chunk: building the chunk from a profile (a JPEG's APP2 profile), and
/// reading which colour space a chunk's profile describes, so that a profile only goes into files
/// whose colour type it fits (PNG allows an RGB profile on colour images, a GRAY one on grey images).
public enum PNGColorProfile {
    /// Profiles larger than this (16 MiB) are not carried over.
    public static let maxProfileBytes = 16 << 20

    /// The colour space an ICC profile describes (its header's data colour space field, bytes 16–19).
    public enum ColorSpace: Sendable, Equatable {
        case rgb, gray
        /// CMYK, Lab and every other space: never written to a PNG made from RGBA pixels.
        case other
    }

    /// The `iCCP` payload for `profile`: the name "ICC Profile", NUL, compression method 0 and the
    /// zlib-compressed profile. Nil when the profile is empty, over `maxProfileBytes` or does not compress.
    public static func chunkPayload(profile: [UInt8]) -> [UInt8]? {
        guard !profile.isEmpty, profile.count <= maxProfileBytes else { return nil }
        var compressedCount = compressBound(UInt(profile.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedCount))
        let status = compressed.withUnsafeMutableBufferPointer { out in
            profile.withUnsafeBufferPointer { source in
                compress2(out.baseAddress, &compressedCount, source.baseAddress, UInt(source.count), 9)
            }
        }
        guard status == Z_OK else { return nil }
        return Array("ICC Profile".utf8) + [0, 0] + compressed.prefix(Int(compressedCount))
    }

    /// The colour space of the profile in an `iCCP` payload (only its first 20 bytes are inflated);
    /// nil when the payload is malformed.
    public static func colorSpace(ofChunk payload: [UInt8]) -> ColorSpace? {
        guard let nul = payload.prefix(80).firstIndex(of: 0), nul + 2 < payload.count, payload[nul + 1] == 0 else { return nil }
        let compressed = Array(payload[(nul + 2)...])
        var header = [UInt8](repeating: 0, count: 20)
        // zlib keeps the stream's address from init to end, so it lives at one heap address.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(stream) }
        let produced: Int = compressed.withUnsafeBufferPointer { input in
            header.withUnsafeMutableBufferPointer { output in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = UInt32(input.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = UInt32(output.count)
                let status = inflate(stream, Z_SYNC_FLUSH)
                guard status == Z_OK || status == Z_STREAM_END else { return 0 }
                return output.count - Int(stream.pointee.avail_out)
            }
        }
        guard produced == 20 else { return nil }
        return colorSpace(ofProfileHeader: header)
    }

    /// The colour space named in an ICC profile's header; nil when the profile is shorter than its header field.
    public static func colorSpace(ofProfileHeader profile: [UInt8]) -> ColorSpace? {
        guard profile.count >= 20 else { return nil }
        switch String(decoding: profile[16 ..< 20], as: UTF8.self) {
        case "RGB ": return .rgb
        case "GRAY": return .gray
        default: return .other
        }
    }
}
