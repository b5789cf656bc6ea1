/// The VP8 loop filter (RFC 6386 §15), applied to each macroblock in raster order after its row is
/// reconstructed: left edge, inner vertical edges, top edge, inner horizontal edges; luma only for
/// the simple filter, luma and chroma for the normal one.
///
/// The filters work on 16 positions along an edge at once: the 16 pixels of a luma edge, or the 8 of
/// a U edge and the 8 of the matching V edge. `EdgePixels` holds the four pixels on each side of the
/// edge (p3 p2 p1 p0 | q0 q1 q2 q3) for those 16 positions, one `SIMD16<Int16>` per distance from the edge.
enum VP8LoopFilter {
    /// The strengths of one macroblock (RFC 6386 §15.1): edge limit (`2 · level + interior`; macroblock
    /// edges use 4 more), interior limit, high-edge-variance threshold, and whether inner edges are filtered.
    struct Strength {
        var limit: Int
        var interior: Int
        var highVarianceThreshold: Int
        var filtersInnerEdges: Bool

        /// No filtering.
        static let none = Strength(limit: 0, interior: 0, highVarianceThreshold: 0, filtersInnerEdges: false)
    }

    /// The strength for a macroblock of `segment`, with subblock modes or not (before its
    /// coefficients decide `filtersInnerEdges` for 16×16 modes): the frame level, replaced by or
    /// plus the segment's, plus the intra-frame and (for subblock modes) B_PRED deltas, in 0…63.
    static func strength(_ parameters: VP8FrameParameters, segment: Int, hasSubblockModes: Bool) -> Strength {
        let filter = parameters.filter
        var level = filter.level
        if parameters.segmentation.enabled {
            level = parameters.segmentation.absoluteValues ? parameters.segmentation.filterLevel[segment]
                                                           : level + parameters.segmentation.filterLevel[segment]
        }
        if filter.usesDeltas {
            level += filter.referenceDeltas[0]
            if hasSubblockModes { level += filter.modeDeltas[0] }
        }
        level = min(max(level, 0), 63)
        guard level > 0 else { return .none }
        var interior = level
        if filter.sharpness > 0 {
            interior >>= filter.sharpness > 4 ? 2 : 1
            interior = min(interior, 9 - filter.sharpness)
        }
        interior = max(interior, 1)
        return Strength(limit: 2 * level + interior, interior: interior,
                        highVarianceThreshold: level >= 40 ? 2 : level >= 15 ? 1 : 0, filtersInnerEdges: hasSubblockModes)
    }

    typealias Lanes = SIMD16<Int16>

    /// The pixels across an edge at 16 positions along it: `pixels[k]` is p3, p2, p1, p0, q0, q1, q2, q3
    /// for k = 0…7, lane i the i-th position.
    struct EdgePixels {
        var pixels: (Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes)
        /// First pixel past the edge (q0) of positions 0…7 and 8…15.
        let low: UnsafeMutablePointer<UInt8>, high: UnsafeMutablePointer<UInt8>
        /// Bytes between pixels across the edge, and between positions along it.
        let step: Int, along: Int

        @inline(__always)
        init(low: UnsafeMutablePointer<UInt8>, high: UnsafeMutablePointer<UInt8>, step: Int, along: Int) {
            self.low = low
            self.high = high
            self.step = step
            self.along = along
            pixels = (.zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero)
            withUnsafeMutableBytes(of: &pixels) { raw in
                let v = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Lanes.self)
                if along == 1 {
                    // A horizontal edge: each pixel row across it is 8 contiguous bytes per half.
                    for k in 0 ..< 8 {
                        let offset = (k - 4) * step
                        let a = UnsafeRawPointer(low + offset).loadUnaligned(as: SIMD8<UInt8>.self)
                        let b = UnsafeRawPointer(high + offset).loadUnaligned(as: SIMD8<UInt8>.self)
                        v[k] = Lanes(truncatingIfNeeded: SIMD16(lowHalf: a, highHalf: b))
                    }
                } else {
                    // A vertical edge: the 8 pixels across it are contiguous in each row; load each
                    // row as a word and take byte k of every word for vector k.
                    var rows = SIMD16<UInt64>()
                    for i in 0 ..< 16 {
                        let start = (i < 8 ? low + i * along : high + (i - 8) * along) - 4
                        rows[i] = UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
                    }
                    for k in 0 ..< 8 { v[k] = Lanes(truncatingIfNeeded: (rows &>> UInt64(8 * k)) & 0xFF) }
                }
            }
        }

        /// Writes back the pixels at distances `first…last` (0 = p3 … 7 = q3; a vertical edge writes all 8).
        @inline(__always)
        func store(_ first: Int, _ last: Int) {
            withUnsafeBytes(of: pixels) { raw in
                let v = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Lanes.self)
                if along == 1 {
                    for k in first ... last {
                        let bytes = SIMD16<UInt8>(truncatingIfNeeded: v[k])
                        UnsafeMutableRawPointer(low + (k - 4) * step).storeBytes(of: bytes.lowHalf, as: SIMD8<UInt8>.self)
                        UnsafeMutableRawPointer(high + (k - 4) * step).storeBytes(of: bytes.highHalf, as: SIMD8<UInt8>.self)
                    }
                } else {
                    // Rebuild every row's 8 bytes (the unchanged ones as they were) and store them.
                    var rows = SIMD16<UInt64>()
                    for k in 0 ..< 8 { rows |= SIMD16<UInt64>(truncatingIfNeeded: v[k] & 0xFF) &<< UInt64(8 * k) }
                    for i in 0 ..< 16 {
                        let start = (i < 8 ? low + i * along : high + (i - 8) * along) - 4
                        UnsafeMutableRawPointer(start).storeBytes(of: rows[i].littleEndian, as: UInt64.self)
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func clamp(_ v: Lanes, _ low: Int16, _ high: Int16) -> Lanes {
        let lows = Lanes(repeating: low), highs = Lanes(repeating: high)
        let raised = v.replacing(with: lows, where: v .< lows)
        return raised.replacing(with: highs, where: raised .> highs)
    }

    @inline(__always)
    private static func signedClamp(_ v: Lanes) -> Lanes { clamp(v, -128, 127) }

    @inline(__always)
    private static func pixelClamp(_ v: Lanes) -> Lanes { clamp(v, 0, 255) }

    @inline(__always)
    private static func distance(_ a: Lanes, _ b: Lanes) -> Lanes { (a &- b).replacing(with: b &- a, where: a .< b) }

    @inline(__always)
    private static func maximum(_ a: Lanes, _ b: Lanes) -> Lanes { a.replacing(with: b, where: a .< b) }

    /// Positions where the edge is smooth enough to filter: `2|p0 - q0| + |p1 - q1| / 2 ≤ edgeLimit`.
    @inline(__always)
    private static func edgeMask(_ e: EdgePixels, _ edgeLimit: Int) -> SIMDMask<SIMD16<Int16>> {
        let (_, _, p1, p0, q0, q1, _, _) = e.pixels
        return distance(p0, q0) &* 2 &+ (distance(p1, q1) &>> 1) .<= Lanes(repeating: Int16(edgeLimit))
    }

    /// The normal filter's test: the edge test, and every step inside each side at most `interior`.
    @inline(__always)
    private static func normalMask(_ e: EdgePixels, _ strength: Strength, edgeLimit: Int) -> SIMDMask<SIMD16<Int16>> {
        let (p3, p2, p1, p0, q0, q1, q2, q3) = e.pixels
        var steps = maximum(distance(p3, p2), distance(p2, p1))
        steps = maximum(steps, maximum(distance(p1, p0), distance(q1, q0)))
        steps = maximum(steps, maximum(distance(q2, q1), distance(q3, q2)))
        return edgeMask(e, edgeLimit) .& (steps .<= Lanes(repeating: Int16(strength.interior)))
    }

    /// High edge variance: a step next to the edge larger than the threshold.
    @inline(__always)
    private static func highVariance(_ e: EdgePixels, _ strength: Strength) -> SIMDMask<SIMD16<Int16>> {
        let (_, _, p1, p0, q0, q1, _, _) = e.pixels
        let threshold = Lanes(repeating: Int16(strength.highVarianceThreshold))
        return (distance(p1, p0) .> threshold) .| (distance(q1, q0) .> threshold)
    }

    /// RFC 6386's `common_adjust`: moves p0 and q0 toward each other where `mask` is set, by an amount
    /// from `3(q0 - p0)` plus, where `outerTaps` is set, `p1 - q1`; returns the amount taken from q0.
    @inline(__always)
    private static func adjust(_ e: inout EdgePixels, outerTaps: SIMDMask<SIMD16<Int16>>, mask: SIMDMask<SIMD16<Int16>>) -> Lanes {
        let (_, _, p1, p0, q0, q1, _, _) = e.pixels
        let outer = Lanes.zero.replacing(with: signedClamp(p1 &- q1), where: outerTaps)
        let base = signedClamp(outer &+ 3 &* (q0 &- p0))
        let toP = signedClamp(base &+ 3) &>> 3, toQ = signedClamp(base &+ 4) &>> 3
        e.pixels.3 = p0.replacing(with: pixelClamp(p0 &+ toP), where: mask)
        e.pixels.4 = q0.replacing(with: pixelClamp(q0 &- toQ), where: mask)
        return toQ
    }

    /// The simple filter across one edge.
    static func simpleEdge(_ e: inout EdgePixels, edgeLimit: Int) {
        let mask = edgeMask(e, edgeLimit)
        guard any(mask) else { return }
        _ = adjust(&e, outerTaps: .init(repeating: true), mask: mask)
        e.store(3, 4)
    }

    /// The normal filter across a macroblock edge: up to three pixels each side change.
    static func macroblockEdge(_ e: inout EdgePixels, strength: Strength) {
        let mask = normalMask(e, strength, edgeLimit: strength.limit + 4)
        guard any(mask) else { return }
        let high = highVariance(e, strength)
        let (_, p2, p1, p0, q0, q1, q2, _) = e.pixels
        let w = signedClamp(signedClamp(p1 &- q1) &+ 3 &* (q0 &- p0))
        let a0 = signedClamp((27 &* w &+ 63) &>> 7), a1 = signedClamp((18 &* w &+ 63) &>> 7), a2 = signedClamp((9 &* w &+ 63) &>> 7)
        let smooth = mask .& .!high
        _ = adjust(&e, outerTaps: .init(repeating: true), mask: mask .& high)
        e.pixels.3 = e.pixels.3.replacing(with: pixelClamp(p0 &+ a0), where: smooth)
        e.pixels.4 = e.pixels.4.replacing(with: pixelClamp(q0 &- a0), where: smooth)
        e.pixels.2 = p1.replacing(with: pixelClamp(p1 &+ a1), where: smooth)
        e.pixels.5 = q1.replacing(with: pixelClamp(q1 &- a1), where: smooth)
        e.pixels.1 = p2.replacing(with: pixelClamp(p2 &+ a2), where: smooth)
        e.pixels.6 = q2.replacing(with: pixelClamp(q2 &- a2), where: smooth)
        e.store(1, 6)
    }

    /// The normal filter across an inner (subblock) edge: p1 and q1 also move where the variance is low.
    static func innerEdge(_ e: inout EdgePixels, strength: Strength) {
        let mask = normalMask(e, strength, edgeLimit: strength.limit)
        guard any(mask) else { return }
        let high = highVariance(e, strength)
        let (_, _, p1, _, _, q1, _, _) = e.pixels
        let a = (adjust(&e, outerTaps: high, mask: mask) &+ 1) &>> 1
        let smooth = mask .& .!high
        e.pixels.2 = p1.replacing(with: pixelClamp(p1 &+ a), where: smooth)
        e.pixels.5 = q1.replacing(with: pixelClamp(q1 &- a), where: smooth)
        e.store(2, 5)
    }

    /// Filters the luma macroblock at column `x`, row `y` whose pixel (0, 0) is `origin` (row stride
    /// `stride`), with the normal filter or the simple one.
    static func filterLuma(_ origin: UnsafeMutablePointer<UInt8>, stride: Int, x: Int, y: Int, strength: Strength, simple: Bool) {
        func edge(_ q0: UnsafeMutablePointer<UInt8>, vertical: Bool, macroblock: Bool) {
            let step = vertical ? 1 : stride, along = vertical ? stride : 1
            var e = EdgePixels(low: q0, high: q0 + 8 * along, step: step, along: along)
            if simple {
                simpleEdge(&e, edgeLimit: macroblock ? strength.limit + 4 : strength.limit)
            } else if macroblock {
                macroblockEdge(&e, strength: strength)
            } else {
                innerEdge(&e, strength: strength)
            }
        }
        if x > 0 { edge(origin, vertical: true, macroblock: true) }
        if strength.filtersInnerEdges { for k in Swift.stride(from: 4, to: 16, by: 4) { edge(origin + k, vertical: true, macroblock: false) } }
        if y > 0 { edge(origin, vertical: false, macroblock: true) }
        if strength.filtersInnerEdges { for k in Swift.stride(from: 4, to: 16, by: 4) { edge(origin + k * stride, vertical: false, macroblock: false) } }
    }

    /// Filters the U and V blocks of the macroblock at column `x`, row `y` (pixel (0, 0) at `u`, `v`)
    /// with the normal filter, both planes in one pass.
    static func filterChroma(_ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>, stride: Int, x: Int, y: Int, strength: Strength) {
        func edge(_ offset: Int, vertical: Bool, macroblock: Bool) {
            var e = EdgePixels(low: u + offset, high: v + offset, step: vertical ? 1 : stride, along: vertical ? stride : 1)
            if macroblock { macroblockEdge(&e, strength: strength) } else { innerEdge(&e, strength: strength) }
        }
        if x > 0 { edge(0, vertical: true, macroblock: true) }
        if strength.filtersInnerEdges { edge(4, vertical: true, macroblock: false) }
        if y > 0 { edge(0, vertical: false, macroblock: true) }
        if strength.filtersInnerEdges { edge(4 * stride, vertical: false, macroblock: false) }
    }
}
