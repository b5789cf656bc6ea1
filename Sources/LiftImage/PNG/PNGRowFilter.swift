/// PNG's five row filters on the encoding side, and the adaptive choice between them.
///
/// Residuals are computed with 32-byte vectors where the filter allows (every filter's output depends only
/// on the unfiltered rows, so all of them vectorise here, unlike on the decoding side).
enum PNGRowFilter {
    /// Which filter the encoder puts on each row.
    enum Choice: Sendable, Equatable {
        /// Per row, the filter whose residuals have the smallest sum of absolute values (as signed bytes),
        /// the heuristic libpng uses by default.
        case adaptive
        /// Always this filter type (0 none, 1 sub, 2 up, 3 average, 4 Paeth).
        case fixed(UInt8)
    }

    /// Writes `row` filtered with `type` against `previous` (zeros for the first row) to `out[0..<count]`.
    static func apply(_ type: UInt8, row: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int, bpp: Int,
                      out: UnsafeMutablePointer<UInt8>) {
        let head = min(bpp, count)
        switch type {
        case 0:
            out.update(from: row, count: count)
        case 1:
            out.update(from: row, count: head)
            vectorLoop(from: head, count: count, out: out) { i in row.load32(i) &- row.load32(i &- bpp) } scalar: { i in
                row[i] &- row[i &- bpp]
            }
        case 2:
            vectorLoop(from: 0, count: count, out: out) { i in row.load32(i) &- previous.load32(i) } scalar: { i in
                row[i] &- previous[i]
            }
        case 3:
            for i in 0..<head { out[i] = row[i] &- previous[i] >> 1 }
            vectorLoop(from: head, count: count, out: out) { i in
                let a = row.load32(i &- bpp), b = previous.load32(i)
                return row.load32(i) &- ((a & b) &+ ((a ^ b) &>> 1))
            } scalar: { i in
                row[i] &- UInt8(truncatingIfNeeded: (UInt16(row[i &- bpp]) &+ UInt16(previous[i])) >> 1)
            }
        default:
            precondition(type == 4, "filter types are 0...4")
            for i in 0..<head { out[i] = row[i] &- previous[i] }
            var i = head
            while i &+ 16 <= count {
                let a = SIMD16<Int16>(truncatingIfNeeded: row.load16(i &- bpp))
                let b = SIMD16<Int16>(truncatingIfNeeded: previous.load16(i))
                let c = SIMD16<Int16>(truncatingIfNeeded: previous.load16(i &- bpp))
                let pa0 = b &- c, pb0 = a &- c, pc0 = pa0 &+ pb0
                let pa = pa0.replacing(with: 0 &- pa0, where: pa0 .< 0)
                let pb = pb0.replacing(with: 0 &- pb0, where: pb0 .< 0)
                let pc = pc0.replacing(with: 0 &- pc0, where: pc0 .< 0)
                var p = c
                p.replace(with: b, where: pb .<= pc)
                p.replace(with: a, where: (pa .<= pb) .& (pa .<= pc))
                UnsafeMutableRawPointer(out + i).storeBytes(of: row.load16(i) &- SIMD16<UInt8>(truncatingIfNeeded: p), as: SIMD16<UInt8>.self)
                i &+= 16
            }
            while i < count {
                let a = Int(row[i &- bpp]), b = Int(previous[i]), c = Int(previous[i &- bpp])
                let pa = abs(b &- c), pb = abs(a &- c), pc = abs(a &+ b &- c &- c)
                out[i] = row[i] &- UInt8(truncatingIfNeeded: (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c))
                i &+= 1
            }
        }
    }

    /// Sum of the residuals' magnitudes as signed bytes (0...128 each), the adaptive filter's cost.
    static func cost(_ residuals: UnsafePointer<UInt8>, count: Int) -> Int {
        var total = 0, i = 0
        while i &+ 32 <= count {
            var lanes = SIMD32<UInt16>()
            var block = 0
            while block < 256 && i &+ 32 <= count {
                let d = residuals.load32(i)
                lanes &+= SIMD32<UInt16>(truncatingIfNeeded: pointwiseMin(d, 0 &- d))
                i &+= 32
                block &+= 1
            }
            total &+= Int(lanes.wrappedSum())
        }
        while i < count {
            total &+= Int(min(residuals[i], 0 &- residuals[i]))
            i &+= 1
        }
        return total
    }

    @inline(__always)
    private static func vectorLoop(from start: Int, count: Int, out: UnsafeMutablePointer<UInt8>,
                                   vector: (Int) -> SIMD32<UInt8>, scalar: (Int) -> UInt8) {
        var i = start
        while i &+ 32 <= count {
            UnsafeMutableRawPointer(out + i).storeBytes(of: vector(i), as: SIMD32<UInt8>.self)
            i &+= 32
        }
        while i < count {
            out[i] = scalar(i)
            i &+= 1
        }
    }
}

extension UnsafePointer<UInt8> {
    /// 32 bytes from `self + offset`, unaligned.
    @inline(__always)
    func load32(_ offset: Int) -> SIMD32<UInt8> { UnsafeRawPointer(self + offset).loadUnaligned(as: SIMD32<UInt8>.self) }

    /// 16 bytes from `self + offset`, unaligned.
    @inline(__always)
    func load16(_ offset: Int) -> SIMD16<UInt8> { UnsafeRawPointer(self + offset).loadUnaligned(as: SIMD16<UInt8>.self) }
}
