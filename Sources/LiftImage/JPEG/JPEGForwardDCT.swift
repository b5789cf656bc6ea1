/// The accurate integer forward DCT, libjpeg's `jpeg_fdct_islow` (jfdctint.c), with libjpeg-turbo's
/// quantiser: samples level-shifted by -128, rows transformed first (results scaled by 2^PASS1_BITS),
/// then columns (that scale removed, an overall factor of 8 left, which the divisors absorb), each
/// output rounded exactly where libjpeg rounds, so the quantised coefficients equal libjpeg-turbo's.
///
/// Both passes run on eight `SIMD8<Int32>` vectors at once: the block is transposed so that one
/// 1-D transform across the eight vectors handles all eight rows (or columns) together.
enum JPEGForwardDCT {
    typealias V = JPEGIDCT.V
    typealias U = SIMD8<UInt32>

    /// The even and odd halves of libjpeg's 1-D forward transform. Outputs 0 and 4 come back
    /// unscaled (`tmp10 ± tmp11`), the others scaled by 2^13, before the pass's own descale.
    @inline(__always)
    private static func transform(_ d: JPEGIDCT.Rows) -> JPEGIDCT.Rows {
        let tmp0 = d.0 &+ d.7, tmp7 = d.0 &- d.7
        let tmp1 = d.1 &+ d.6, tmp6 = d.1 &- d.6
        let tmp2 = d.2 &+ d.5, tmp5 = d.2 &- d.5
        let tmp3 = d.3 &+ d.4, tmp4 = d.3 &- d.4
        // Even part (Loeffler, Ligtenberg and Moschytz, figure 1, with the rotator sqrt(2)*c6).
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3
        let tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
        let z1e = (tmp12 &+ tmp13) &* JPEGIDCT.fix_0_541196100
        let out2 = z1e &+ tmp13 &* JPEGIDCT.fix_0_765366865
        let out6 = z1e &+ tmp12 &* -JPEGIDCT.fix_1_847759065
        // Odd part (figure 8; cK is cos(K*pi/16)).
        let z1 = tmp4 &+ tmp7, z2 = tmp5 &+ tmp6, z3 = tmp4 &+ tmp6, z4 = tmp5 &+ tmp7
        let z5 = (z3 &+ z4) &* JPEGIDCT.fix_1_175875602
        let m1 = z1 &* -JPEGIDCT.fix_0_899976223, m2 = z2 &* -JPEGIDCT.fix_2_562915447
        let m3 = z3 &* -JPEGIDCT.fix_1_961570560 &+ z5, m4 = z4 &* -JPEGIDCT.fix_0_390180644 &+ z5
        let out7 = tmp4 &* JPEGIDCT.fix_0_298631336 &+ m1 &+ m3
        let out5 = tmp5 &* JPEGIDCT.fix_2_053119869 &+ m2 &+ m4
        let out3 = tmp6 &* JPEGIDCT.fix_3_072711026 &+ m2 &+ m3
        let out1 = tmp7 &* JPEGIDCT.fix_1_501321110 &+ m1 &+ m4
        return (tmp10 &+ tmp11, out1, out2, out3, tmp10 &- tmp11, out5, out6, out7)
    }

    /// libjpeg's `DESCALE(x, n)`: `(x + 2^(n-1)) >> n`, arithmetic.
    @inline(__always) private static func descale(_ x: V, _ n: Int32) -> V {
        (x &+ V(repeating: 1 &<< (n &- 1))) &>> n
    }

    /// Loads eight samples level-shifted by -128 (a lane loop LLVM turns into one widening move).
    @inline(__always) private static func load(_ p: UnsafePointer<UInt8>) -> V {
        let raw = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)
        var v = V()
        for i in 0 ..< 8 { v[i] = Int32(truncatingIfNeeded: raw[i]) }
        return v &- 128
    }

    /// libjpeg-turbo's `quantize` on one row of eight coefficients: the magnitude plus the
    /// correction, times the reciprocal, shifted down, the sign put back.
    @inline(__always)
    private static func quantize(_ v: V, _ divisors: UnsafeRawPointer, row: Int) -> V {
        let reciprocal = divisors.loadUnaligned(fromByteOffset: row &* 32, as: U.self)
        let correction = divisors.loadUnaligned(fromByteOffset: 256 &+ row &* 32, as: U.self)
        let shift = divisors.loadUnaligned(fromByteOffset: 512 &+ row &* 32, as: U.self)
        let sign = v &>> 31
        let magnitude = unsafeBitCast((v ^ sign) &- sign, to: U.self)
        let quotient = unsafeBitCast(((magnitude &+ correction) &* reciprocal) &>> shift, to: V.self)
        return (quotient ^ sign) &- sign
    }

    /// Stores one row of eight coefficients (each fits in 16 bits).
    @inline(__always) private static func store(_ v: V, _ p: UnsafeMutablePointer<Int16>) {
        var narrow = SIMD8<Int16>()
        for i in 0 ..< 8 { narrow[i] = Int16(truncatingIfNeeded: v[i]) }
        UnsafeMutableRawPointer(p).storeBytes(of: narrow, as: SIMD8<Int16>.self)
    }

    /// Transforms and quantises one 8x8 block.
    /// - Parameters:
    ///   - samples: the block's top-left sample; rows `stride` bytes apart.
    ///   - divisors: 192 `UInt32`s: reciprocals, corrections, shifts, 64 each in natural order
    ///     (`JPEGQuantizationDivisors`).
    ///   - zigzag: the 64 natural-order indices in zigzag order.
    ///   - output: receives the 64 quantised coefficients in natural (row-major) order.
    /// - Returns: a mask with bit `k` set when zigzag coefficient `k` (`output[zigzag[k]]`) is not zero.
    @inline(__always)
    static func block(_ samples: UnsafePointer<UInt8>, stride: Int, divisors: UnsafeRawPointer, zigzag: UnsafePointer<UInt8>,
                      output: UnsafeMutablePointer<Int16>) -> UInt64 {
        if let flat = flatSample(samples, stride: stride) { return flatBlock(flat, divisors: divisors, output: output) }
        // Pass 1 on rows, vectorised across rows: vector k holds column k of every row.
        var r: JPEGIDCT.Rows = (load(samples), load(samples + stride), load(samples + 2 &* stride), load(samples + 3 &* stride),
                                load(samples + 4 &* stride), load(samples + 5 &* stride), load(samples + 6 &* stride),
                                load(samples + 7 &* stride))
        JPEGIDCT.transpose(&r)
        let pass1Bits = JPEGIDCT.pass1Bits, descale1 = JPEGIDCT.constBits &- pass1Bits
        let p = transform(r)
        // Vector k now holds coefficient k of every row; transposing gives one vector per row again.
        var c: JPEGIDCT.Rows = (p.0 &<< pass1Bits, descale(p.1, descale1), descale(p.2, descale1), descale(p.3, descale1),
                                p.4 &<< pass1Bits, descale(p.5, descale1), descale(p.6, descale1), descale(p.7, descale1))
        JPEGIDCT.transpose(&c)
        // Pass 2 on columns, vectorised across columns: output vector u is coefficient row u.
        let descale2 = JPEGIDCT.constBits &+ pass1Bits
        let q = transform(c)
        store(quantize(descale(q.0, pass1Bits), divisors, row: 0), output)
        store(quantize(descale(q.1, descale2), divisors, row: 1), output + 8)
        store(quantize(descale(q.2, descale2), divisors, row: 2), output + 16)
        store(quantize(descale(q.3, descale2), divisors, row: 3), output + 24)
        store(quantize(descale(q.4, pass1Bits), divisors, row: 4), output + 32)
        store(quantize(descale(q.5, descale2), divisors, row: 5), output + 40)
        store(quantize(descale(q.6, descale2), divisors, row: 6), output + 48)
        store(quantize(descale(q.7, descale2), divisors, row: 7), output + 56)
        return nonZeroMask(output, zigzag: zigzag)
    }

    /// The sample every pixel of the block has, or nil when they differ. Flat blocks are common in what
    /// Lift writes (a cut-out's plain background, a mask's inside and outside).
    @inline(__always)
    private static func flatSample(_ samples: UnsafePointer<UInt8>, stride: Int) -> UInt8? {
        let raw = UnsafeRawPointer(samples)
        let row = UInt64(samples[0]) &* 0x0101_0101_0101_0101
        var differs: UInt64 = 0
        for r in 0 ..< 8 { differs |= raw.loadUnaligned(fromByteOffset: r &* stride, as: UInt64.self) ^ row }
        return differs == 0 ? samples[0] : nil
    }

    /// The quantised block of a flat block of `sample`s: what `block`'s arithmetic gives for it, which
    /// is exactly a DC of `64 * (sample - 128)` (the row pass gives `8 * (sample - 128) << 2` and zeros,
    /// the column pass removes the 2 bits again) and no AC.
    @inline(__always)
    private static func flatBlock(_ sample: UInt8, divisors: UnsafeRawPointer, output: UnsafeMutablePointer<Int16>) -> UInt64 {
        let raw = UnsafeMutableRawPointer(output)
        for r in 0 ..< 8 { raw.storeBytes(of: SIMD8<Int16>(), toByteOffset: r &* 16, as: SIMD8<Int16>.self) }
        let dc = quantize(V(repeating: (Int32(sample) &- 128) &* 64), divisors, row: 0)[0]
        output[0] = Int16(truncatingIfNeeded: dc)
        return dc != 0 ? 1 : 0
    }

    /// Bit `k` set when `coefficients[zigzag[k]]` is not zero: one byte per coefficient, then each
    /// 8 bytes of 0 or 1 packed into 8 bits by one multiply (byte `i` lands in bit `56 + i`).
    @inline(__always)
    private static func nonZeroMask(_ coefficients: UnsafePointer<Int16>, zigzag: UnsafePointer<UInt8>) -> UInt64 {
        var words = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &words) { raw in
            let bytes = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self)
            for k in 0 ..< 64 { bytes[k] = coefficients[Int(zigzag[k])] != 0 ? 1 : 0 }
            var mask: UInt64 = 0
            for group in 0 ..< 8 {
                let word = raw.load(fromByteOffset: group &* 8, as: UInt64.self)
                mask |= ((word &* 0x0102_0408_1020_4080) &>> 56) &<< UInt64(group &* 8)
            }
            return mask
        }
    }
}
