/// Reverses PNG's per-row filters (spec section 9): each row starts with a filter type byte and its
/// bytes are predicted from the byte `bpp` to the left (a), above (b) and above-left (c).
enum PNGUnfilter {
    /// Unfilters `row[0..<count]` in place using the already unfiltered `previous` row (all zeros for a
    /// pass's first row). `bpp` is the filter stride (bytes per pixel, at least 1).
    /// Returns false for an unknown filter type, leaving the row untouched.
    static func apply(type: UInt8, row: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int, bpp: Int) -> Bool {
        switch type {
        case 0: break
        case 1: sub(row, count, bpp)
        case 2: up(row, previous, count)
        case 3: average(row, previous, count, bpp)
        case 4:
            switch bpp {
            case 3: paeth3(row, previous, count)
            case 4: paeth4(row, previous, count)
            default: paethScalar(row, previous, count, bpp)
            }
        default: return false
        }
        return true
    }

    @inline(__always)
    private static func sub(_ row: UnsafeMutablePointer<UInt8>, _ count: Int, _ bpp: Int) {
        var i = bpp
        while i < count {
            row[i] &+= row[i &- bpp]
            i &+= 1
        }
    }

    @inline(__always)
    private static func up(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, _ count: Int) {
        var i = 0
        let raw = UnsafeMutableRawPointer(row), above = UnsafeRawPointer(previous)
        while i &+ 32 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD32<UInt8>.self) &+ above.loadUnaligned(fromByteOffset: i, as: SIMD32<UInt8>.self)
            raw.storeBytes(of: v, toByteOffset: i, as: SIMD32<UInt8>.self)
            i &+= 32
        }
        while i < count {
            row[i] &+= previous[i]
            i &+= 1
        }
    }

    @inline(__always)
    private static func average(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, _ count: Int, _ bpp: Int) {
        var i = 0
        while i < min(bpp, count) {
            row[i] &+= previous[i] >> 1
            i &+= 1
        }
        while i < count {
            row[i] &+= UInt8(truncatingIfNeeded: (UInt16(row[i &- bpp]) &+ UInt16(previous[i])) >> 1)
            i &+= 1
        }
    }

    /// The Paeth predictor for up to four channels at once: a, b or c, whichever is closest to a + b - c
    /// (ties prefer a, then b).
    @inline(__always)
    private static func paethPredictor(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _ c: SIMD4<Int16>) -> SIMD4<Int16> {
        let pa0 = b &- c, pb0 = a &- c, pc0 = pa0 &+ pb0
        let pa = pa0.replacing(with: 0 &- pa0, where: pa0 .< 0)
        let pb = pb0.replacing(with: 0 &- pb0, where: pb0 .< 0)
        let pc = pc0.replacing(with: 0 &- pc0, where: pc0 .< 0)
        var p = c
        p.replace(with: b, where: pb .<= pc)
        p.replace(with: a, where: (pa .<= pb) .& (pa .<= pc))
        return p
    }

    private static func paeth4(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, _ count: Int) {
        let raw = UnsafeMutableRawPointer(row), above = UnsafeRawPointer(previous)
        var a = SIMD4<Int16>(), c = SIMD4<Int16>()
        var i = 0
        while i &+ 4 <= count {
            let b = SIMD4<Int16>(truncatingIfNeeded: above.loadUnaligned(fromByteOffset: i, as: SIMD4<UInt8>.self))
            let x = raw.loadUnaligned(fromByteOffset: i, as: SIMD4<UInt8>.self)
            let out = x &+ SIMD4<UInt8>(truncatingIfNeeded: paethPredictor(a, b, c))
            raw.storeBytes(of: out, toByteOffset: i, as: SIMD4<UInt8>.self)
            a = SIMD4<Int16>(truncatingIfNeeded: out)
            c = b
            i &+= 4
        }
    }

    private static func paeth3(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, _ count: Int) {
        var a = SIMD4<Int16>(), c = SIMD4<Int16>()
        var i = 0
        while i &+ 3 <= count {
            let b = SIMD4<Int16>(Int16(previous[i]), Int16(previous[i &+ 1]), Int16(previous[i &+ 2]), 0)
            let p = SIMD4<UInt8>(truncatingIfNeeded: paethPredictor(a, b, c))
            let r = row[i] &+ p[0], g = row[i &+ 1] &+ p[1], bl = row[i &+ 2] &+ p[2]
            row[i] = r
            row[i &+ 1] = g
            row[i &+ 2] = bl
            a = SIMD4<Int16>(Int16(r), Int16(g), Int16(bl), 0)
            c = b
            i &+= 3
        }
    }

    private static func paethScalar(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, _ count: Int, _ bpp: Int) {
        var i = 0
        while i < min(bpp, count) {
            row[i] &+= previous[i]
            i &+= 1
        }
        while i < count {
            let a = Int(row[i &- bpp]), b = Int(previous[i]), c = Int(previous[i &- bpp])
            let pa = abs(b &- c), pb = abs(a &- c), pc = abs(a &+ b &- c &- c)
            let p = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
            row[i] &+= UInt8(truncatingIfNeeded: p)
            i &+= 1
        }
    }
}
