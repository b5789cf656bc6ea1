import Foundation

/// Builds PNG files byte by byte, for tests of invalid and unusual files.
public enum PNGBytes {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    public static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    public static func ihdr(width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 0, compression: UInt8 = 0,
                     filter: UInt8 = 0, interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", be32(width) + be32(height) + [depth, colorType, compression, filter, interlace])
    }

    /// A zlib stream holding `data` in one stored (uncompressed) block; `data.count` < 65536.
    public static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in data { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        let n = UInt16(data.count)
        return [0x78, 0x01, 0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)] + data + be32(b << 16 | a)
    }

    /// A whole grey 8-bit file whose IDAT holds `scanlines` (filter bytes included) in a stored block.
    public static func gray8(width: UInt32, height: UInt32, scanlines: [UInt8]) -> [UInt8] {
        signature + ihdr(width: width, height: height) + chunk("IDAT", storedZlib(scanlines)) + chunk("IEND", [])
    }

    /// Offsets of every chunk in a well-formed file, with its type and total length (12 + payload).
    public static func chunks(_ file: [UInt8]) -> [(offset: Int, type: String, length: Int)] {
        var result: [(Int, String, Int)] = []
        var offset = 8
        while offset + 12 <= file.count {
            let length = Int(file[offset]) << 24 | Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8 | Int(file[offset + 3])
            result.append((offset, String(decoding: file[(offset + 4)..<(offset + 8)], as: UTF8.self), length + 12))
            offset += length + 12
        }
        return result
    }
}
