/// The encoder's sample preparation, libjpeg's jccolor.c and jcsample.c: RGB to YCbCr with the same
/// 16-bit fixed-point constants and rounding, rows padded by repeating their last sample, and 2x2
/// chroma averaging with libjpeg's alternating 1, 2 bias.
///
/// The loops are plain scalar loops over pointers on purpose: LLVM vectorises them, while Swift's
/// SIMD conversions compile to per-lane code.
enum JPEGEncoderSampling {
    // libjpeg's FIX(x) = x * 65536 rounded; the three luminance weights add up to exactly 65536.
    private static let yR: Int32 = 19595   // FIX(0.29900)
    private static let yG: Int32 = 38470   // FIX(0.58700)
    private static let yB: Int32 = 7471    // FIX(0.11400)
    private static let cbR: Int32 = 11059  // FIX(0.16874)
    private static let cbG: Int32 = 21709  // FIX(0.33126)
    private static let crG: Int32 = 27439  // FIX(0.41869)
    private static let crB: Int32 = 5329   // FIX(0.08131)
    private static let half: Int32 = 32768 // FIX(0.5), also ONE_HALF
    /// `CBCR_OFFSET + ONE_HALF - 1`: centres Cb and Cr on 128 and rounds them (jccolor.c).
    private static let chromaOffset: Int32 = (128 << 16) + (1 << 15) - 1

    /// Converts `count` RGBA pixels to Y, Cb and Cr samples as libjpeg's `rgb_ycc_convert`.
    /// - Returns: the AND of the pixels' alpha samples (255 when every pixel is opaque).
    static func convertRow(_ rgba: UnsafePointer<UInt8>, count: Int, y: UnsafeMutablePointer<UInt8>,
                           cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) -> UInt8 {
        let words = UnsafeRawPointer(rgba)
        var alpha: UInt32 = 0xFF00_0000
        for x in 0 ..< count {
            let pixel = words.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self)
            alpha &= pixel
            let r = Int32(truncatingIfNeeded: pixel & 0xFF)
            let g = Int32(truncatingIfNeeded: (pixel &>> 8) & 0xFF)
            let b = Int32(truncatingIfNeeded: (pixel &>> 16) & 0xFF)
            y[x] = UInt8(truncatingIfNeeded: (yR &* r &+ yG &* g &+ yB &* b &+ half) &>> 16)
            cb[x] = UInt8(truncatingIfNeeded: (half &* b &- cbR &* r &- cbG &* g &+ chromaOffset) &>> 16)
            cr[x] = UInt8(truncatingIfNeeded: (half &* r &- crG &* g &- crB &* b &+ chromaOffset) &>> 16)
        }
        return UInt8(truncatingIfNeeded: alpha &>> 24)
    }

    /// Repeats sample `count - 1` of `row` up to index `paddedCount - 1` (libjpeg's `expand_right_edge`).
    @inline(__always)
    static func padRow(_ row: UnsafeMutablePointer<UInt8>, count: Int, paddedCount: Int) {
        guard paddedCount > count else { return }
        (row + count).update(repeating: row[count &- 1], count: paddedCount &- count)
    }

    /// libjpeg's `h2v2_downsample` for one output row: each output sample is the sum of a 2x2 block
    /// of `top` and `bottom` plus a bias of 1 at even and 2 at odd output columns, divided by 4, so
    /// that rounding does not drift one way across a row.
    /// - Parameters:
    ///   - top, bottom: the two input rows, each at least `2 * count` samples (padded).
    ///   - output: receives `count` samples (`count` even: a whole number of blocks).
    static func downsampleRow(top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>,
                              output: UnsafeMutablePointer<UInt8>, count: Int) {
        for pair in 0 ..< count / 2 {
            let i = pair &* 4
            let even = UInt16(top[i]) &+ UInt16(top[i &+ 1]) &+ UInt16(bottom[i]) &+ UInt16(bottom[i &+ 1]) &+ 1
            let odd = UInt16(top[i &+ 2]) &+ UInt16(top[i &+ 3]) &+ UInt16(bottom[i &+ 2]) &+ UInt16(bottom[i &+ 3]) &+ 2
            output[pair &* 2] = UInt8(truncatingIfNeeded: even &>> 2)
            output[pair &* 2 &+ 1] = UInt8(truncatingIfNeeded: odd &>> 2)
        }
    }
}
