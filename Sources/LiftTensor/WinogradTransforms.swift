// The transforms of Winograd F(m×m, 3×3) for m = 2 and m = 4 (Lavin & Gray 2016), on 16 channels at
// a time. A tile reads (m+2)×(m+2) input samples and writes m×m outputs; component k = (m+2)·row + column.
//
// F(2, 3): Bᵀ = [[1, 0, −1, 0], [0, 1, 1, 0], [0, −1, 1, 0], [0, 1, 0, −1]],
//          G  = [[1, 0, 0], [½, ½, ½], [½, −½, ½], [0, 0, 1]],  Aᵀ = [[1, 1, 1, 0], [0, 1, −1, −1]].
// F(4, 3): Bᵀ = [[4, 0, −5, 0, 1, 0], [0, −4, −4, 1, 1, 0], [0, 4, −4, −1, 1, 0],
//                [0, −2, −1, 2, 1, 0], [0, 2, −1, −2, 1, 0], [0, 4, 0, −5, 0, 1]],
//          G  = [[¼, 0, 0], [−⅙, −⅙, −⅙], [−⅙, ⅙, −⅙], [1/24, 1/12, ⅙], [1/24, −1/12, ⅙], [0, 0, 1]],
//          Aᵀ = [[1, 1, 1, 1, 1, 0], [0, 1, −1, 2, −2, 0], [0, 1, 1, 4, 4, 0], [0, 1, −1, 8, −8, 1]].

/// Bᵀ·x·B of channels `ch ..< ch+16` of a 4×4 tile (`samples`: its 16 pointers, row-major),
/// component k stored at `destination + k·stride`.
@inline(__always)
func winogradInputTransform2<let C: Int>(_ samples: borrowing InlineArray<C, UnsafePointer<Float>>, _ ch: Int,
                                         _ destination: UnsafeMutablePointer<Float>, _ stride: Int) {
    var d = InlineArray<16, Vector>(repeating: Vector())
    for i in 0 ..< 16 { d[i] = loadVector(samples[i] + ch) }
    for r in 0 ..< 4 {
        let x0 = d[r &* 4], x1 = d[r &* 4 &+ 1], x2 = d[r &* 4 &+ 2], x3 = d[r &* 4 &+ 3]
        d[r &* 4] = x0 - x2; d[r &* 4 &+ 1] = x1 + x2; d[r &* 4 &+ 2] = x2 - x1; d[r &* 4 &+ 3] = x1 - x3
    }
    for col in 0 ..< 4 {
        let x0 = d[col], x1 = d[4 &+ col], x2 = d[8 &+ col], x3 = d[12 &+ col]
        storeVector(x0 - x2, destination + col &* stride)
        storeVector(x1 + x2, destination + (4 &+ col) &* stride)
        storeVector(x2 - x1, destination + (8 &+ col) &* stride)
        storeVector(x1 - x3, destination + (12 &+ col) &* stride)
    }
}

/// Bᵀ·x for one line of 6 samples (F(4, 3)).
@inline(__always)
private func inputLine4(_ x0: Vector, _ x1: Vector, _ x2: Vector, _ x3: Vector, _ x4: Vector, _ x5: Vector)
    -> (Vector, Vector, Vector, Vector, Vector, Vector) {
    let t0 = multiplyAdd(x2, Vector(repeating: -4), x4), t1 = multiplyAdd(x1, Vector(repeating: -4), x3)
    let t2 = x4 - x2, t3 = x3 - x1
    let v0 = multiplyAdd(x2, Vector(repeating: -5), multiplyAdd(x0, Vector(repeating: 4), x4))
    let v5 = multiplyAdd(x3, Vector(repeating: -5), multiplyAdd(x1, Vector(repeating: 4), x5))
    return (v0, t0 + t1, t0 - t1, multiplyAdd(t3, Vector(repeating: 2), t2), multiplyAdd(t3, Vector(repeating: -2), t2), v5)
}

/// Bᵀ·x·B of channels `ch ..< ch+16` of a 6×6 tile (`samples`: its 36 pointers, row-major),
/// component k stored at `destination + k·stride`.
@inline(__always)
func winogradInputTransform4<let C: Int>(_ samples: borrowing InlineArray<C, UnsafePointer<Float>>, _ ch: Int,
                                         _ destination: UnsafeMutablePointer<Float>, _ stride: Int) {
    var rows = InlineArray<36, Vector>(repeating: Vector())
    for r in 0 ..< 6 {
        let base = r &* 6
        let v = inputLine4(loadVector(samples[base] + ch), loadVector(samples[base &+ 1] + ch), loadVector(samples[base &+ 2] + ch),
                           loadVector(samples[base &+ 3] + ch), loadVector(samples[base &+ 4] + ch), loadVector(samples[base &+ 5] + ch))
        rows[base] = v.0; rows[base &+ 1] = v.1; rows[base &+ 2] = v.2; rows[base &+ 3] = v.3; rows[base &+ 4] = v.4; rows[base &+ 5] = v.5
    }
    for col in 0 ..< 6 {
        let v = inputLine4(rows[col], rows[6 &+ col], rows[12 &+ col], rows[18 &+ col], rows[24 &+ col], rows[30 &+ col])
        storeVector(v.0, destination + col &* stride)
        storeVector(v.1, destination + (6 &+ col) &* stride)
        storeVector(v.2, destination + (12 &+ col) &* stride)
        storeVector(v.3, destination + (18 &+ col) &* stride)
        storeVector(v.4, destination + (24 &+ col) &* stride)
        storeVector(v.5, destination + (30 &+ col) &* stride)
    }
}

/// Aᵀ·M·A of a 4×4-component tile whose component k is at `source + k·stride`: output (i, j) goes
/// to `store(i, j, value)`.
@inline(__always)
func winogradOutputTransform2(_ source: UnsafePointer<Float>, _ stride: Int, _ store: (Int, Int, Vector) -> Void) {
    var sums = InlineArray<8, Vector>(repeating: Vector())
    for r in 0 ..< 4 {
        let m0 = loadVector(source + (r &* 4) &* stride), m1 = loadVector(source + (r &* 4 &+ 1) &* stride)
        let m2 = loadVector(source + (r &* 4 &+ 2) &* stride), m3 = loadVector(source + (r &* 4 &+ 3) &* stride)
        sums[r &* 2] = m0 + m1 + m2
        sums[r &* 2 &+ 1] = m1 - m2 - m3
    }
    for j in 0 ..< 2 {
        store(0, j, sums[j] + sums[2 &+ j] + sums[4 &+ j])
        store(1, j, sums[2 &+ j] - sums[4 &+ j] - sums[6 &+ j])
    }
}

/// Aᵀ·m for one line of 6 components (F(4, 3)).
@inline(__always)
private func outputLine4(_ m0: Vector, _ m1: Vector, _ m2: Vector, _ m3: Vector, _ m4: Vector, _ m5: Vector)
    -> (Vector, Vector, Vector, Vector) {
    let a = m1 + m2, b = m1 - m2, c = m3 + m4, e = m3 - m4
    return (m0 + a + c, multiplyAdd(e, Vector(repeating: 2), b), multiplyAdd(c, Vector(repeating: 4), a),
            multiplyAdd(e, Vector(repeating: 8), b) + m5)
}

/// Aᵀ·M·A of a 6×6-component tile whose component k is at `source + k·stride`: output (i, j) goes
/// to `store(i, j, value)`.
@inline(__always)
func winogradOutputTransform4(_ source: UnsafePointer<Float>, _ stride: Int, _ store: (Int, Int, Vector) -> Void) {
    var sums = InlineArray<24, Vector>(repeating: Vector())
    for r in 0 ..< 6 {
        let base = source + (r &* 6) &* stride
        let s = outputLine4(loadVector(base), loadVector(base + stride), loadVector(base + 2 &* stride),
                            loadVector(base + 3 &* stride), loadVector(base + 4 &* stride), loadVector(base + 5 &* stride))
        sums[r &* 4] = s.0; sums[r &* 4 &+ 1] = s.1; sums[r &* 4 &+ 2] = s.2; sums[r &* 4 &+ 3] = s.3
    }
    for j in 0 ..< 4 {
        let s = outputLine4(sums[j], sums[4 &+ j], sums[8 &+ j], sums[12 &+ j], sums[16 &+ j], sums[20 &+ j])
        store(0, j, s.0); store(1, j, s.1); store(2, j, s.2); store(3, j, s.3)
    }
}

/// U = G·g·Gᵀ of 16 filters at once (lane i = filter i) for output tile m (2 or 4), computed in
/// Double and rounded once; `taps` holds the filters as `[ky][kx][16]` Doubles, and lanes
/// `4q ..< 4q+4` of component k = (m+2)·row + column go to `store(k, q, u)`. Model loading runs it
/// for every input channel and block of 16 output channels of every Winograd layer, so it works on
/// four lanes at a time (one AVX2 register of Doubles: nothing spills) and allocates nothing.
@inline(__always)
func winogradWeightTransform(outputTile m: Int, taps: UnsafePointer<Double>, _ store: (Int, Int, SIMD4<Float>) -> Void) {
    typealias Lanes = SIMD4<Double>
    /// G applied to one column (or row) (a, b, c): entry i goes to `emit(i, value)`.
    @inline(__always)
    func transform(_ a: Lanes, _ b: Lanes, _ c: Lanes, _ emit: (Int, Lanes) -> Void) {
        if m == 2 {
            emit(0, a); emit(1, (a + b + c) * 0.5); emit(2, (a - b + c) * 0.5); emit(3, c)
            return
        }
        let a24 = a * (1.0 / 24), b12 = b * (1.0 / 12), c6 = c * (1.0 / 6)
        emit(0, a * 0.25); emit(1, (a + b + c) * (-1.0 / 6)); emit(2, (a - b + c) * (-1.0 / 6))
        emit(3, a24 + b12 + c6); emit(4, a24 - b12 + c6); emit(5, c)
    }
    let points = m + 2
    for quarter in 0 ..< 4 {
        @inline(__always) func g(_ tap: Int) -> Lanes {
            let offset: Int = tap &* 16 &+ quarter &* 4
            return UnsafeRawPointer(taps + offset).loadUnaligned(as: Lanes.self)
        }
        // G·g: the transform of each kernel column, as [row][kx].
        var gg = InlineArray<18, Lanes>(repeating: Lanes())
        for kx in 0 ..< 3 {
            transform(g(kx), g(3 &+ kx), g(6 &+ kx)) { row, value in gg[row &* 3 &+ kx] = value }
        }
        for row in 0 ..< points {
            transform(gg[row &* 3], gg[row &* 3 &+ 1], gg[row &* 3 &+ 2]) { column, value in
                store(row &* points &+ column, quarter, SIMD4<Float>(value))
            }
        }
    }
}
