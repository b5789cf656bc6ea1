/// The inverse transforms of VP8 (RFC 6386 §14.3–14.5), in exact 32-bit integer arithmetic: the 4×4
/// DCT added to a predicted block, and the Walsh–Hadamard transform that yields the 16 luma DC values
/// of a macroblock predicted as a whole. Coefficients are `Int16` in raster order within a block;
/// arithmetic wraps like the 32-bit C reference on out-of-range data instead of trapping.
enum VP8Transform {
    /// `x · √2 · cos(π/8)` as used by the reference decoder: `x + (x · 20091) >> 16`.
    @inline(__always)
    private static func cosine(_ x: Int32) -> Int32 { x &+ ((x &* 20091) >> 16) }

    /// `x · √2 · sin(π/8)`: `(x · 35468) >> 16`.
    @inline(__always)
    private static func sine(_ x: Int32) -> Int32 { (x &* 35468) >> 16 }

    /// Inverse DCT of `coefficients` added to the 4×4 pixels at `p` (stride `stride`), clamped to 0…255:
    /// columns first, then rows with rounding `(v + 4) >> 3`.
    static func addInverseDCT(_ coefficients: UnsafePointer<Int16>, to p: UnsafeMutablePointer<UInt8>, stride: Int) {
        var temp: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &temp) { raw in
            let t = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Int32.self)
            for i in 0 ..< 4 {
                let c0 = Int32(coefficients[i]), c1 = Int32(coefficients[4 + i])
                let c2 = Int32(coefficients[8 + i]), c3 = Int32(coefficients[12 + i])
                let a = c0 &+ c2, b = c0 &- c2
                let c = sine(c1) &- cosine(c3), d = cosine(c1) &+ sine(c3)
                t[i] = a &+ d
                t[4 + i] = b &+ c
                t[8 + i] = b &- c
                t[12 + i] = a &- d
            }
            for y in 0 ..< 4 {
                let r = t + 4 * y
                let a = r[0] &+ r[2], b = r[0] &- r[2]
                let c = sine(r[1]) &- cosine(r[3]), d = cosine(r[1]) &+ sine(r[3])
                let row = p + y * stride
                add(&row[0], (a &+ d &+ 4) >> 3)
                add(&row[1], (b &+ c &+ 4) >> 3)
                add(&row[2], (b &- c &+ 4) >> 3)
                add(&row[3], (a &- d &+ 4) >> 3)
            }
        }
    }

    /// Adds a block whose only non-zero coefficient is the DC: every pixel gets `(dc + 4) >> 3`
    /// (what the full transform gives for such a block).
    static func addInverseDC(_ dc: Int16, to p: UnsafeMutablePointer<UInt8>, stride: Int) {
        let value = (Int32(dc) &+ 4) >> 3
        for y in 0 ..< 4 {
            let row = p + y * stride
            for x in 0 ..< 4 { add(&row[x], value) }
        }
    }

    @inline(__always)
    private static func add(_ pixel: inout UInt8, _ residual: Int32) {
        pixel = UInt8(clamping: Int32(pixel) &+ residual)
    }

    /// Inverse Walsh–Hadamard transform of the Y2 block: writes the DC coefficient (index 0) of each of
    /// the 16 luma blocks at `blocks` (16 coefficients apart), in raster order.
    static func inverseWHT(_ coefficients: UnsafePointer<Int16>, into blocks: UnsafeMutablePointer<Int16>) {
        var temp = [Int32](repeating: 0, count: 16)
        for i in 0 ..< 4 {
            let c0 = Int32(coefficients[i]), c1 = Int32(coefficients[4 + i])
            let c2 = Int32(coefficients[8 + i]), c3 = Int32(coefficients[12 + i])
            let a = c0 &+ c3, b = c1 &+ c2, c = c1 &- c2, d = c0 &- c3
            temp[i] = a &+ b
            temp[4 + i] = c &+ d
            temp[8 + i] = a &- b
            temp[12 + i] = d &- c
        }
        for y in 0 ..< 4 {
            let r0 = temp[4 * y], r1 = temp[4 * y + 1], r2 = temp[4 * y + 2], r3 = temp[4 * y + 3]
            let a = r0 &+ r3, b = r1 &+ r2, c = r1 &- r2, d = r0 &- r3
            let out = blocks + 64 * y
            out[0] = Int16(truncatingIfNeeded: (a &+ b &+ 3) >> 3)
            out[16] = Int16(truncatingIfNeeded: (c &+ d &+ 3) >> 3)
            out[32] = Int16(truncatingIfNeeded: (a &- b &+ 3) >> 3)
            out[48] = Int16(truncatingIfNeeded: (d &- c &+ 3) >> 3)
        }
    }
}
