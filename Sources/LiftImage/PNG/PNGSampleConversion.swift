/// Converts unfiltered scanlines of any colour type and bit depth to RGBA pixels.
///
/// Scaling rules (the fixtures' reference, `Tools/fixtures/make_png_fixtures.py`, uses the same):
/// - to 8 bits: depth d < 8: `v * 255 / (2^d - 1)` (exact); depth 16: `(v * 255 + 32895) >> 16`, which is
///   `round(v / 257)`, the nearest 8-bit value;
/// - to 16 bits: `v * 65535 / (2^d - 1)` (exact: bit replication);
/// - a grey or RGB pixel equal to the tRNS colour key (compared at the file's depth) gets alpha 0, every
///   other pixel without an alpha channel gets full alpha; palette alpha comes from tRNS, full past its end;
/// - palette indices past the end of PLTE give opaque black (as libpng).
struct PNGSampleConverter {
    private let colorType: PNGColorType
    private let depth: Int
    /// 256 RGBA entries for palette images (unused entries opaque black).
    private let paletteRGBA: [UInt8]
    /// The tRNS colour key: one grey value or R, G, B, at the file's depth.
    private let key: SIMD3<UInt16>?

    init(header: PNGHeader, palette: UnsafeRawBufferPointer?, transparency: UnsafeRawBufferPointer?) {
        colorType = header.colorType
        depth = header.bitDepth
        var table = [UInt8](repeating: 0, count: 1024)
        for i in 0..<256 { table[i &* 4 &+ 3] = 255 }
        if header.colorType == .palette, let palette {
            for i in 0..<(palette.count / 3) {
                table[i * 4] = palette[i * 3]
                table[i * 4 + 1] = palette[i * 3 + 1]
                table[i * 4 + 2] = palette[i * 3 + 2]
            }
            if let transparency {
                for i in 0..<transparency.count { table[i * 4 + 3] = transparency[i] }
            }
        }
        paletteRGBA = table
        switch (header.colorType, transparency) {
        case (.gray, let t?): key = SIMD3(repeating: t.bigEndianUInt16(at: 0))
        case (.rgb, let t?): key = SIMD3(t.bigEndianUInt16(at: 0), t.bigEndianUInt16(at: 2), t.bigEndianUInt16(at: 4))
        default: key = nil
        }
    }

    /// Writes `count` pixels of `row` as RGBA8 to `out`, `step` pixels apart (Adam7 passes use step > 1).
    func toRGBA8(_ row: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt8>, step: Int) {
        let stride = step &* 4
        switch (colorType, depth) {
        case (.rgba, 8) where step == 1:
            out.update(from: row, count: count &* 4)
        case (.rgba, 8):
            for i in 0..<count {
                (out + i &* stride).update(from: row + i &* 4, count: 4)
            }
        case (.rgb, 8) where key == nil:
            // Whole-pixel 32-bit moves; the last pixel separately so nothing is read past the row.
            let raw = UnsafeRawPointer(row)
            Self.store(count &- 1, out, step) { i in UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i &* 3, as: UInt32.self)) | 0xFF00_0000 }
            let s = row + (count &- 1) &* 3, o = out + (count &- 1) &* stride
            o[0] = s[0]; o[1] = s[1]; o[2] = s[2]; o[3] = 255
        case (.gray, 8) where key == nil:
            Self.store(count, out, step) { i in UInt32(row[i]) &* 0x0001_0101 | 0xFF00_0000 }
        case (.rgb, 8):
            let k = key.map { SIMD3<UInt8>(truncatingIfNeeded: $0) }
            for i in 0..<count {
                let s = row + i &* 3, o = out + i &* stride
                o[0] = s[0]; o[1] = s[1]; o[2] = s[2]
                o[3] = k.map { SIMD3(s[0], s[1], s[2]) == $0 ? 0 : 255 } ?? 255
            }
        case (.gray, 8):
            let k = key.map { Int($0.x) } ?? -1
            for i in 0..<count {
                let v = row[i], o = out + i &* stride
                o[0] = v; o[1] = v; o[2] = v
                o[3] = Int(v) == k ? 0 : 255
            }
        case (.grayAlpha, 8):
            Self.store(count, out, step) { i in UInt32(row[i &* 2]) &* 0x0001_0101 | UInt32(row[i &* 2 &+ 1]) << 24 }
        case (.palette, _):
            paletteRGBA.withUnsafeBytes { table in
                if depth == 8 {
                    Self.store(count, out, step) { i in table.load(fromByteOffset: Int(row[i]) &* 4, as: UInt32.self).littleEndian }
                } else {
                    Self.store(count, out, step) { i in
                        table.load(fromByteOffset: Int(Self.packedSample(row, i, depth)) &* 4, as: UInt32.self).littleEndian
                    }
                }
            }
        case (.gray, _) where depth < 8:
            let scale = UInt8(255 / ((1 << depth) - 1))
            let k = key.map { Int($0.x) } ?? -1
            for i in 0..<count {
                let s = Self.packedSample(row, i, depth), v = s &* scale, o = out + i &* stride
                o[0] = v; o[1] = v; o[2] = v
                o[3] = Int(s) == k ? 0 : 255
            }
        default:
            precondition(depth == 16, "8-bit and smaller depths are handled above")
            let channels = colorType.channels
            for i in 0..<count {
                let rgba = sixteenBitPixel(row, i, channels)
                let o = out + i &* stride
                o[0] = Self.reduce(rgba.x); o[1] = Self.reduce(rgba.y); o[2] = Self.reduce(rgba.z); o[3] = Self.reduce(rgba.w)
            }
        }
    }

    /// Writes `count` grey samples of `row` (colour type 0 only) as 8-bit values to `out`, `step` apart.
    func toGray8(_ row: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt8>, step: Int) {
        precondition(colorType == .gray, "decodeGray checks the colour type first")
        switch depth {
        case 8 where step == 1:
            out.update(from: row, count: count)
        case 8:
            for i in 0..<count { out[i &* step] = row[i] }
        case 16:
            for i in 0..<count { out[i &* step] = Self.reduce(UInt16(row[i &* 2]) << 8 | UInt16(row[i &* 2 &+ 1])) }
        default:
            let scale = UInt8(255 / ((1 << depth) - 1))
            for i in 0..<count { out[i &* step] = Self.packedSample(row, i, depth) &* scale }
        }
    }

    /// Stores `pixel(i)` (RGBA as a little-endian UInt32, R in the low byte) for i in 0..<count, `step`
    /// pixels apart; the contiguous case is its own loop so LLVM can vectorise it.
    @inline(__always)
    private static func store(_ count: Int, _ out: UnsafeMutablePointer<UInt8>, _ step: Int, _ pixel: (Int) -> UInt32) {
        let o = UnsafeMutableRawPointer(out)
        if step == 1 {
            for i in 0..<max(0, count) { o.storeBytes(of: pixel(i).littleEndian, toByteOffset: i &* 4, as: UInt32.self) }
        } else {
            let stride = step &* 4
            for i in 0..<max(0, count) { o.storeBytes(of: pixel(i).littleEndian, toByteOffset: i &* stride, as: UInt32.self) }
        }
    }

    /// Writes `count` pixels of `row` as RGBA16 (host-endian samples) to `out`, `step` pixels apart.
    func toRGBA16(_ row: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt16>, step: Int) {
        let stride = step &* 4
        let channels = colorType.channels
        for i in 0..<count {
            let rgba: SIMD4<UInt16>
            if depth == 16 {
                rgba = sixteenBitPixel(row, i, channels)
            } else if colorType == .palette {
                let index = depth == 8 ? Int(row[i]) : Int(Self.packedSample(row, i, depth))
                rgba = SIMD4<UInt16>(truncatingIfNeeded: SIMD4(paletteRGBA[index * 4], paletteRGBA[index * 4 + 1],
                                                               paletteRGBA[index * 4 + 2], paletteRGBA[index * 4 + 3])) &* 257
            } else {
                let scale = UInt16(65535 / ((1 << depth) - 1))
                var s = SIMD4<UInt16>(repeating: 0)
                for c in 0..<channels {
                    s[c] = UInt16(depth == 8 ? row[i &* channels &+ c] : Self.packedSample(row, i, depth))
                }
                let max = UInt16((1 << depth) - 1)
                rgba = expand(s, channels: channels, opaque: max) &* scale
            }
            UnsafeMutableRawPointer(out + i &* stride).storeBytes(of: rgba, as: SIMD4<UInt16>.self)
        }
    }

    /// One 16-bit pixel as RGBA16 with the colour key applied.
    @inline(__always)
    private func sixteenBitPixel(_ row: UnsafePointer<UInt8>, _ i: Int, _ channels: Int) -> SIMD4<UInt16> {
        var s = SIMD4<UInt16>(repeating: 0)
        let base = row + i &* channels &* 2
        for c in 0..<channels { s[c] = UInt16(base[c &* 2]) << 8 | UInt16(base[c &* 2 &+ 1]) }
        return expand(s, channels: channels, opaque: 65535)
    }

    /// Spreads grey / grey+alpha / RGB / RGBA samples (in the low lanes of `s`) to RGBA, applying the key.
    @inline(__always)
    private func expand(_ s: SIMD4<UInt16>, channels: Int, opaque: UInt16) -> SIMD4<UInt16> {
        switch channels {
        case 1: return SIMD4(s.x, s.x, s.x, key.map { $0.x == s.x } == true ? 0 : opaque)
        case 2: return SIMD4(s.x, s.x, s.x, s.y)
        case 3: return SIMD4(s.x, s.y, s.z, key.map { $0 == SIMD3(s.x, s.y, s.z) } == true ? 0 : opaque)
        default: return s
        }
    }

    /// Sample `i` of a row packed at `depth` (1, 2 or 4) bits per sample, most significant bits first.
    @inline(__always)
    static func packedSample(_ row: UnsafePointer<UInt8>, _ i: Int, _ depth: Int) -> UInt8 {
        let bit = i &* depth
        return (row[bit >> 3] >> (8 &- depth &- (bit & 7))) & UInt8((1 << depth) - 1)
    }

    /// A 16-bit sample rounded to the nearest 8-bit value: round(v / 257).
    @inline(__always)
    static func reduce(_ v: UInt16) -> UInt8 { UInt8(truncatingIfNeeded: (UInt32(v) &* 255 &+ 32895) >> 16) }
}
