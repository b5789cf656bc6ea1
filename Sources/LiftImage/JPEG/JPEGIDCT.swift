/// Dequantisation and the accurate integer inverse DCT, libjpeg's `jpeg_idct_islow` (jidctint.c):
/// 13-bit fixed-point constants, two extra bits of precision between the column and row passes,
/// results level-shifted by 128 and range-limited the way libjpeg's `idct_range_limit` table does
/// (the sum is wrapped to 10 bits, then clamped), so corrupt inputs behave as in libjpeg too.
enum JPEGIDCT {
    // The fixed-point constants, the vector type and the transpose are shared with the forward DCT
    // (`JPEGForwardDCT`), libjpeg's jfdctint.c, which uses the same 13-bit constants.
    static let constBits: Int32 = 13
    static let pass1Bits: Int32 = 2

    static let fix_0_298631336: Int32 = 2446
    static let fix_0_390180644: Int32 = 3196
    static let fix_0_541196100: Int32 = 4433
    static let fix_0_765366865: Int32 = 6270
    static let fix_0_899976223: Int32 = 7373
    static let fix_1_175875602: Int32 = 9633
    static let fix_1_501321110: Int32 = 12299
    static let fix_1_847759065: Int32 = 15137
    static let fix_1_961570560: Int32 = 16069
    static let fix_2_053119869: Int32 = 16819
    static let fix_2_562915447: Int32 = 20995
    static let fix_3_072711026: Int32 = 25172

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

    typealias V = SIMD8<Int32>
    typealias Rows = (V, V, V, V, V, V, V, V)

    /// Sign-extends eight coefficients (a lane loop LLVM turns into one `vpmovsxwd`; the generic
    /// `init(truncatingIfNeeded:)` is an out-of-line call).
    @inline(__always) private static func widen(_ p: UnsafePointer<Int16>) -> V {
        let raw = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int16>.self)
        var v = V()
        for i in 0 ..< 8 { v[i] = Int32(truncatingIfNeeded: raw[i]) }
        return v
    }

    /// Transposes an 8x8 matrix held as eight row vectors: three rounds of even/odd unzipping.
    @inline(__always) static func transpose(_ r: inout Rows) {
        for _ in 0 ..< 3 {
            r = (V(lowHalf: r.0.evenHalf, highHalf: r.1.evenHalf), V(lowHalf: r.2.evenHalf, highHalf: r.3.evenHalf),
                 V(lowHalf: r.4.evenHalf, highHalf: r.5.evenHalf), V(lowHalf: r.6.evenHalf, highHalf: r.7.evenHalf),
                 V(lowHalf: r.0.oddHalf, highHalf: r.1.oddHalf), V(lowHalf: r.2.oddHalf, highHalf: r.3.oddHalf),
                 V(lowHalf: r.4.oddHalf, highHalf: r.5.oddHalf), V(lowHalf: r.6.oddHalf, highHalf: r.7.oddHalf))
        }
    }

    /// libjpeg's range limit of a descaled IDCT output: wrap to 10 bits (its `RANGE_MASK`), level
    /// shift by 128, clamp to 0...255, using only lane-wise arithmetic (vector compares are slow here).
    @inline(__always) private static func rangeLimit(_ v: V) -> V {
        let x = ((v &+ 512) & 1023) &- 384
        let positive = x & ~(x &>> 31)
        let over = positive &- 255
        return (over & (over &>> 31)) &+ 255
    }

    /// Stores one row of eight samples (values already in 0...255).
    @inline(__always) private static func store(_ v: V, _ p: UnsafeMutablePointer<UInt8>) {
        var bytes = SIMD8<UInt8>()
        for i in 0 ..< 8 { bytes[i] = UInt8(truncatingIfNeeded: v[i]) }
        UnsafeMutableRawPointer(p).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
    }

    /// Dequantises `coefficients` (64, natural order) with `quant` and writes the 8x8 samples to
    /// `output`, rows `stride` bytes apart.
    @inline(__always)
    static func islow(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<Int32>,
                      _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let q = UnsafeRawPointer(quant)
        @inline(__always) func row(_ r: Int) -> V {
            widen(coefficients + r &* 8) &* q.loadUnaligned(fromByteOffset: r &* 32, as: V.self)
        }
        // Pass 1: all eight columns at once, one vector per row of coefficients.
        let descale1 = constBits &- pass1Bits
        let round1 = V(repeating: 1 &<< (descale1 &- 1))
        let c = transform(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
        var ws: Rows = ((c.0 &+ round1) &>> descale1, (c.1 &+ round1) &>> descale1, (c.2 &+ round1) &>> descale1,
                        (c.3 &+ round1) &>> descale1, (c.4 &+ round1) &>> descale1, (c.5 &+ round1) &>> descale1,
                        (c.6 &+ round1) &>> descale1, (c.7 &+ round1) &>> descale1)
        // Pass 2 on rows, vectorised across rows: transpose so vector k holds column k of every row.
        transpose(&ws)
        let descale2 = constBits &+ pass1Bits &+ 3
        let round2 = V(repeating: 1 &<< (descale2 &- 1))
        let o = transform(ws.0, ws.1, ws.2, ws.3, ws.4, ws.5, ws.6, ws.7)
        var samples: Rows = (rangeLimit((o.0 &+ round2) &>> descale2), rangeLimit((o.1 &+ round2) &>> descale2),
                             rangeLimit((o.2 &+ round2) &>> descale2), rangeLimit((o.3 &+ round2) &>> descale2),
                             rangeLimit((o.4 &+ round2) &>> descale2), rangeLimit((o.5 &+ round2) &>> descale2),
                             rangeLimit((o.6 &+ round2) &>> descale2), rangeLimit((o.7 &+ round2) &>> descale2))
        transpose(&samples)
        store(samples.0, output)
        store(samples.1, output + stride)
        store(samples.2, output + 2 &* stride)
        store(samples.3, output + 3 &* stride)
        store(samples.4, output + 4 &* stride)
        store(samples.5, output + 5 &* stride)
        store(samples.6, output + 6 &* stride)
        store(samples.7, output + 7 &* stride)
    }

    /// The inverse DCT of a block whose AC coefficients are all zero: one flat value. Exactly what
    /// `islow` computes for such a block (libjpeg's own zero-AC shortcuts give the same).
    @inline(__always)
    static func dcOnly(_ dc: Int16, _ quant: UnsafePointer<Int32>, _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let workspace = (Int32(dc) &* quant[0]) &<< pass1Bits
        let v = (workspace &+ (1 &<< (pass1Bits &+ 2))) &>> (pass1Bits &+ 3)
        let sample = UInt64(truncatingIfNeeded: min(max(((v &+ 512) & 1023) &- 512 &+ 128, 0), 255))
        let row = sample &* 0x0101_0101_0101_0101
        for r in 0 ..< 8 { UnsafeMutableRawPointer(output + r &* stride).storeBytes(of: row, as: UInt64.self) }
    }

    /// `islow`, or `dcOnly` when the block's AC coefficients are all zero.
    @inline(__always)
    static func transform(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<Int32>,
                          _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let raw = UnsafeRawPointer(coefficients)
        var any = raw.loadUnaligned(as: SIMD8<Int16>.self) & SIMD8<Int16>(0, -1, -1, -1, -1, -1, -1, -1)
        for r in 1 ..< 8 { any |= raw.loadUnaligned(fromByteOffset: r &* 16, as: SIMD8<Int16>.self) }
        if any == SIMD8<Int16>() {
            dcOnly(coefficients[0], quant, output, stride)
        } else {
            islow(coefficients, quant, output, stride)
        }
    }
}
