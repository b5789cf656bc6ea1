extension ImageIO {
    /// The width and height a PNG's `IHDR`, a JPEG's frame header (`SOFn`), a GIF's logical screen or a WebP's canvas or bitstream header declares, as stored
    /// (before any EXIF rotation), read without decoding anything; nil for other bytes, or when the
    /// header is missing or cut short. Only a budget is sized from it: decoders check it again.
    public static func storedSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        switch ImageFormat.sniff(bytes) {
        case .png:
            // Signature, then the IHDR chunk: length (4), "IHDR", width and height (big-endian, 4 each).
            guard bytes.count >= 24, bytes[12 ..< 16].elementsEqual("IHDR".utf8) else { return nil }
            return (bigEndian(bytes, at: 16, count: 4), bigEndian(bytes, at: 20, count: 4))
        case .jpeg:
            return jpegFrameSize(bytes)
        case .gif:
            // Signature (6), then the logical screen's width and height (little-endian, 2 each).
            guard bytes.count >= 10 else { return nil }
            return (Int(bytes[6]) | Int(bytes[7]) << 8, Int(bytes[8]) | Int(bytes[9]) << 8)
        case .webp:
            return webpSize(bytes)
        case nil:
            return nil
        }
    }

    /// A WebP's canvas (`VP8X`), else its image chunk's size: a VP8 key frame's 14-bit width and
    /// height after its 3-byte tag and start code, or VP8L's after its signature byte (14 bits each,
    /// minus one).
    private static func webpSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        bytes.withUnsafeBufferPointer { file -> (width: Int, height: Int)? in
            guard let container = try? WebPContainer(file, limits: .default) else { return nil }
            if let canvas = container.canvas { return canvas }
            let p = container.image.data
            switch container.image.bitstream {
            case .lossy:
                guard p.count >= 10 else { return nil }
                let at = p.lowerBound
                return (Int(file[at + 6]) | Int(file[at + 7] & 0x3F) << 8, Int(file[at + 8]) | Int(file[at + 9] & 0x3F) << 8)
            case .lossless:
                guard p.count >= 5 else { return nil }
                let bits = Int(WebPContainer.le32(file, p.lowerBound + 1))
                return (1 + bits & 0x3FFF, 1 + (bits >> 14) & 0x3FFF)
            }
        }
    }

    /// The size in the first SOFn segment, walking the marker segments before it.
    private static func jpegFrameSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var position = 2
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else { position += 1; continue }
            let code = bytes[position + 1]
            switch code {
            case 0xFF: position += 1; continue
            case 0x00, 0x01, 0xD0 ... 0xD8: position += 2; continue
            case 0xD9, 0xDA: return nil  // the image ends, or its data starts, before any frame header
            default: break
            }
            let length = bigEndian(bytes, at: position + 2, count: 2)
            let isFrame = (0xC0 ... 0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
            if isFrame {
                guard length >= 7, position + 9 <= bytes.count else { return nil }
                return (bigEndian(bytes, at: position + 7, count: 2), bigEndian(bytes, at: position + 5, count: 2))
            }
            position += 2 + max(length, 2)
        }
        return nil
    }

    /// The unsigned big-endian number in `count` bytes at `offset` (the caller checked the bounds).
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
        bytes[offset ..< offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
