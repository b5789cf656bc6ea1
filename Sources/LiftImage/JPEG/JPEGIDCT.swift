/// Dequantisation and the accurate integer inverse DCT, libjpeg's `jpeg_idct_islow` (jidctint.c):
/// 13-bit fixed-point constants, two extra bits of precision between the column and row passes,
/// results level-shifted by 128 and range-limited the way libjpeg's `idct_range_limit` table does
/// (the sum is wrapped to 10 bits, then clamped), so corrupt inputs behave as in libjpeg too.
enum JPEGIDCT {
    private static let constBits: Int32 = 13
    private static let pass1Bits: Int32 = 2

    private static let fix_0_298631336: Int32 = 2446
    private static let fix_0_390180644: Int32 = 3196
    private static let fix_0_541196100: Int32 = 4433
    private static let fix_0_765366865: Int32 = 6270
    private static let fix_0_899976223: Int32 = 7373
    private static let fix_1_175875602: Int32 = 9633
    private static let fix_1_501321110: Int32 = 12299
    private static let fix_1_847759065: Int32 = 15137
    private static let fix_1_961570560: Int32 = 16069
    private static let fix_2_053119869: Int32 = 16819
    private static let fix_2_562915447: Int32 = 20995
    private static let fix_3_072711026: Int32 = 25172

    /// The 8-point 1-D transform shared by both passes: inputs in frequency order, outputs in
    /// sample order, still scaled by `2^constBits` (before the pass's descale).
    @inline(__always)
    private static func transform<V: SIMD>(_ i0: V, _ i1: V, _ i2: V, _ i3: V, _ i4: V, _ i5: V, _ i6: V, _ i7: V)
        -> (V, V, V, V, V, V, V, V) where V.Scalar == Int32 {
        // Even part.
        let z1e = (i2 &+ i6) &* fix_0_541196100
        let tmp2e = z1e &+ i6 &* -fix_1_847759065
        let tmp3e = z1e &+ i2 &* fix_0_765366865
        let tmp0e = (i0 &+ i4) &<< constBits
        let tmp1e = (i0 &- i4) &<< constBits
        let tmp10 = tmp0e &+ tmp3e, tmp13 = tmp0e &- tmp3e
        let tmp11 = tmp1e &+ tmp2e, tmp12 = tmp1e &- tmp2e
        // Odd part.
        let z1 = i7 &+ i1, z2 = i5 &+ i3, z3 = i7 &+ i3, z4 = i5 &+ i1
        let z5 = (z3 &+ z4) &* fix_1_175875602
        let m1 = z1 &* -fix_0_899976223, m2 = z2 &* -fix_2_562915447
        let m3 = z3 &* -fix_1_961570560 &+ z5, m4 = z4 &* -fix_0_390180644 &+ z5
        let tmp0 = i7 &* fix_0_298631336 &+ m1 &+ m3
        let tmp1 = i5 &* fix_2_053119869 &+ m2 &+ m4
        let tmp2 = i3 &* fix_3_072711026 &+ m2 &+ m3
        let tmp3 = i1 &* fix_1_501321110 &+ m1 &+ m4
        return (tmp10 &+ tmp3, tmp11 &+ tmp2, tmp12 &+ tmp1, tmp13 &+ tmp0,
                tmp13 &- tmp0, tmp12 &- tmp1, tmp11 &- tmp2, tmp10 &- tmp3)
    }

    /// Dequantises `coefficients` (64, natural order) with `quant` and writes the 8x8 samples to
    /// `output`, rows `stride` bytes apart.
    @inline(__always)
    static func islow(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<Int32>,
                      _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        typealias V = SIMD8<Int32>
        @inline(__always) func row(_ r: Int) -> V {
            let raw = UnsafeRawPointer(coefficients + r &* 8).loadUnaligned(as: SIMD8<Int16>.self)
            let q = UnsafeRawPointer(quant + r &* 8).loadUnaligned(as: V.self)
            return V(truncatingIfNeeded: raw) &* q
        }
        // Pass 1: all eight columns at once, one vector per row of coefficients.
        let r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3), r4 = row(4), r5 = row(5), r6 = row(6), r7 = row(7)
        let descale1 = constBits &- pass1Bits
        let round1 = V(repeating: 1 &<< (descale1 &- 1))
        let c = transform(r0 &<< 0, r1, r2, r3, r4, r5, r6, r7)
        // Column results (rows of the workspace), then transposed so pass 2 is vectorised too.
        var ws = (
            (c.0 &+ round1) &>> descale1, (c.1 &+ round1) &>> descale1, (c.2 &+ round1) &>> descale1, (c.3 &+ round1) &>> descale1,
            (c.4 &+ round1) &>> descale1, (c.5 &+ round1) &>> descale1, (c.6 &+ round1) &>> descale1, (c.7 &+ round1) &>> descale1)
        var t = (V(), V(), V(), V(), V(), V(), V(), V())
        withUnsafeBytes(of: &ws) { src in
            withUnsafeMutableBytes(of: &t) { dst in
                let s = src.assumingMemoryBound(to: Int32.self), d = dst.assumingMemoryBound(to: Int32.self)
                for i in 0 ..< 8 { for j in 0 ..< 8 { d[j &* 8 &+ i] = s[i &* 8 &+ j] } }
            }
        }
        // Pass 2: rows; lane j of vector k is workspace row j, column k.
        let descale2 = constBits &+ pass1Bits &+ 3
        let round2 = V(repeating: 1 &<< (descale2 &- 1))
        let o = transform(t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.7)
        var samples = (o.0, o.1, o.2, o.3, o.4, o.5, o.6, o.7)
        withUnsafeMutableBytes(of: &samples) { raw in
            let columns = raw.assumingMemoryBound(to: V.self)
            for k in 0 ..< 8 {
                // Wrap to 10 bits as libjpeg's RANGE_MASK does, then clamp to 0...255 after the level shift.
                let v = (columns[k] &+ round2) &>> descale2
                let wrapped = ((v &+ 512) & 1023) &- 512 &+ 128
                columns[k] = wrapped.clamped(lowerBound: V(repeating: 0), upperBound: V(repeating: 255))
            }
            let s = raw.assumingMemoryBound(to: Int32.self)
            for r in 0 ..< 8 {
                let line = output + r &* stride
                for k in 0 ..< 8 { line[k] = UInt8(truncatingIfNeeded: s[k &* 8 &+ r]) }
            }
        }
    }
}
