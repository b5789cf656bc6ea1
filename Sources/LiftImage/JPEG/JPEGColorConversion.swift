/// Conversion of one row of full-resolution component samples to RGBA8 (alpha 255), with the
/// same integer arithmetic as libjpeg-turbo's jdcolor.c (16-bit fixed point, rounded) and, for
/// CMYK, Pillow's `cmyk2rgb` applied to Adobe's inverted CMYK as Pillow reads it.
enum JPEGColorConversion {
    // libjpeg's FIX(x) = x * 65536 rounded.
    private static let crToR: Int32 = 91881     // FIX(1.40200)
    private static let cbToB: Int32 = 116130    // FIX(1.77200)
    private static let crToG: Int32 = 46802     // FIX(0.71414)
    private static let cbToG: Int32 = 22554     // FIX(0.34414)
    private static let half: Int32 = 1 << 15

    @inline(__always) private static func clamp(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(v, 0), 255))
    }

    /// YCbCr to RGB for one pixel, as `ycc_rgb_convert` does.
    @inline(__always)
    static func ycc(_ y: UInt8, _ cb: UInt8, _ cr: UInt8) -> (UInt8, UInt8, UInt8) {
        let yy = Int32(y), b = Int32(cb) &- 128, r = Int32(cr) &- 128
        let red = yy &+ ((crToR &* r &+ half) &>> 16)
        let green = yy &+ ((half &- cbToG &* b &- crToG &* r) &>> 16)
        let blue = yy &+ ((cbToB &* b &+ half) &>> 16)
        return (clamp(red), clamp(green), clamp(blue))
    }

    /// Packs one pixel as a little-endian RGBA word (R in the low byte, alpha 255).
    @inline(__always) private static func word(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
        UInt32(truncatingIfNeeded: r | g &<< 8 | b &<< 16) | 0xFF00_0000
    }

    // The row loops below are plain scalar loops over pointers on purpose: LLVM vectorises them to
    // AVX-512, while Swift's SIMD compares and conversions compile to per-lane code or calls.

    /// Writes `count` RGBA pixels from YCbCr rows.
    static func yccRow(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                       _ out: UnsafeMutablePointer<UInt8>, count: Int) {
        let words = UnsafeMutableRawPointer(out)
        for x in 0 ..< count {
            let yy = Int32(y[x]), b = Int32(cb[x]) &- 128, r = Int32(cr[x]) &- 128
            let red = min(max(yy &+ ((crToR &* r &+ half) &>> 16), 0), 255)
            let green = min(max(yy &+ ((half &- cbToG &* b &- crToG &* r) &>> 16), 0), 255)
            let blue = min(max(yy &+ ((cbToB &* b &+ half) &>> 16), 0), 255)
            words.storeBytes(of: word(red, green, blue), toByteOffset: x &* 4, as: UInt32.self)
        }
    }

    /// Writes `count` RGBA pixels from one grey row.
    static func grayRow(_ y: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, count: Int) {
        let words = UnsafeMutableRawPointer(out)
        for x in 0 ..< count {
            let v = Int32(y[x])
            words.storeBytes(of: word(v, v, v), toByteOffset: x &* 4, as: UInt32.self)
        }
    }

    /// Writes `count` RGBA pixels from R, G, B rows (Adobe transform 0 or R/G/B component ids).
    static func rgbRow(_ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>,
                       _ out: UnsafeMutablePointer<UInt8>, count: Int) {
        let words = UnsafeMutableRawPointer(out)
        for x in 0 ..< count {
            words.storeBytes(of: word(Int32(r[x]), Int32(g[x]), Int32(b[x])), toByteOffset: x &* 4, as: UInt32.self)
        }
    }

    /// Writes `count` RGBA pixels from stored (Adobe-inverted) C, M, Y, K rows, or from YCCK rows
    /// when `ycck` (first converted to inverted CMY as libjpeg's `ycck_cmyk_convert` does).
    /// Pillow un-inverts (`CMYK;I`) and converts with `255 - k` scaling: `nk - c * nk / 255`.
    static func cmykRow(_ c0: UnsafePointer<UInt8>, _ c1: UnsafePointer<UInt8>, _ c2: UnsafePointer<UInt8>,
                        _ c3: UnsafePointer<UInt8>, ycck: Bool, _ out: UnsafeMutablePointer<UInt8>, count: Int) {
        @inline(__always) func mulDiv255(_ a: Int32, _ b: Int32) -> Int32 {
            let t = a &* b &+ 128
            return ((t &>> 8) &+ t) &>> 8
        }
        for x in 0 ..< count {
            var stored = (c0[x], c1[x], c2[x])
            if ycck {
                let (r, g, b) = ycc(c0[x], c1[x], c2[x])
                stored = (255 &- r, 255 &- g, 255 &- b)
            }
            // Stored samples are inverted: ink = 255 - stored; Pillow's nk = 255 - ink(K) = stored K.
            let nk = Int32(c3[x])
            let o = out + x &* 4
            o[0] = clamp(nk &- mulDiv255(255 &- Int32(stored.0), nk))
            o[1] = clamp(nk &- mulDiv255(255 &- Int32(stored.1), nk))
            o[2] = clamp(nk &- mulDiv255(255 &- Int32(stored.2), nk))
            o[3] = 255
        }
    }
}
