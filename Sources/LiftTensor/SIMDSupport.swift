/// The SIMD helpers every kernel uses: 16-wide Float vectors loaded from and stored to raw floats.
typealias Vector = SIMD16<Float>

/// Lanes in a `Vector`; channel blocks in packed weights are this wide.
let vectorWidth = 16

/// Loads 16 consecutive floats (no alignment needed).
@inline(__always)
func loadVector(_ pointer: UnsafePointer<Float>) -> Vector {
    UnsafeRawPointer(pointer).loadUnaligned(as: Vector.self)
}

/// Stores 16 consecutive floats (no alignment needed).
@inline(__always)
func storeVector(_ value: Vector, _ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: Vector.self)
}

/// Stores the first `lanes` (1…16) lanes of `value`.
@inline(__always)
func storeVector(_ value: Vector, _ pointer: UnsafeMutablePointer<Float>, lanes: Int) {
    if lanes == vectorWidth {
        storeVector(value, pointer)
    } else {
        for lane in 0 ..< lanes { pointer[lane] = value[lane] }
    }
}

/// `value` rounded up to a multiple of 16.
@inline(__always)
func roundUpToVector(_ value: Int) -> Int { (value + vectorWidth - 1) / vectorWidth * vectorWidth }

/// A 64-byte aligned, zero-filled float buffer owned by a kernel object (packed weights, zero rows).
final class AlignedBuffer: @unchecked Sendable {
    /// The floats; `count + 16` are allocated so a vector load may start at any element.
    let pointer: UnsafeMutablePointer<Float>
    /// Usable floats.
    let count: Int

    init(count: Int) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: (count + vectorWidth) * 4, alignment: 64)
        pointer = raw.initializeMemory(as: Float.self, repeating: 0, count: count + vectorWidth)
    }

    deinit { pointer.deallocate() }
}

/// Lane-wise maximum.
@inline(__always)
func pointwiseMax(_ a: Vector, _ b: Vector) -> Vector {
    a.replacing(with: b, where: b .> a)
}

/// Lane-wise minimum.
@inline(__always)
func pointwiseMin(_ a: Vector, _ b: Vector) -> Vector {
    a.replacing(with: b, where: b .< a)
}

/// The sum of all 16 lanes, by halving (a fixed order, so results never depend on the caller).
@inline(__always)
func horizontalSum(_ v: Vector) -> Float {
    let eight = v.lowHalf + v.highHalf
    let four = eight.lowHalf + eight.highHalf
    let two = four.lowHalf + four.highHalf
    return two[0] + two[1]
}

/// Lane-wise min(max(x, 0), 6). `@_transparent` like `Activation.apply`, which uses it.
@_transparent
func clampRelu6(_ x: Vector) -> Vector {
    pointwiseMin(pointwiseMax(x, Vector()), Vector(repeating: 6))
}

/// The sums of 16 vectors at once: lane i is `horizontalSum(v[i])`, bit for bit (the same halving
/// order), in about 15 vector additions and shuffles instead of 16 separate reductions.
@inline(__always)
func laneSums(_ v: InlineArray<16, Vector>) -> Vector {
    // Each level halves every vector's partial sums and packs two vectors' halves into one.
    var eights = InlineArray<8, Vector>(repeating: Vector())
    for k in 0 ..< 8 {
        let a = v[2 &* k], b = v[2 &* k &+ 1]
        eights[k] = Vector(lowHalf: a.lowHalf, highHalf: b.lowHalf) + Vector(lowHalf: a.highHalf, highHalf: b.highHalf)
    }
    var fours = InlineArray<4, Vector>(repeating: Vector())
    for k in 0 ..< 4 {
        let a = eights[2 &* k], b = eights[2 &* k &+ 1]
        let low = Vector(lowHalf: SIMD8(lowHalf: a.lowHalf.lowHalf, highHalf: a.highHalf.lowHalf),
                         highHalf: SIMD8(lowHalf: b.lowHalf.lowHalf, highHalf: b.highHalf.lowHalf))
        let high = Vector(lowHalf: SIMD8(lowHalf: a.lowHalf.highHalf, highHalf: a.highHalf.highHalf),
                          highHalf: SIMD8(lowHalf: b.lowHalf.highHalf, highHalf: b.highHalf.highHalf))
        fours[k] = low + high
    }
    @inline(__always)
    func quarterHalves(_ x: Vector, high: Bool) -> SIMD8<Float> {
        let q0 = x.lowHalf.lowHalf, q1 = x.lowHalf.highHalf, q2 = x.highHalf.lowHalf, q3 = x.highHalf.highHalf
        return high
            ? SIMD8(lowHalf: SIMD4(lowHalf: q0.highHalf, highHalf: q1.highHalf), highHalf: SIMD4(lowHalf: q2.highHalf, highHalf: q3.highHalf))
            : SIMD8(lowHalf: SIMD4(lowHalf: q0.lowHalf, highHalf: q1.lowHalf), highHalf: SIMD4(lowHalf: q2.lowHalf, highHalf: q3.lowHalf))
    }
    var twos = InlineArray<2, Vector>(repeating: Vector())
    for k in 0 ..< 2 {
        let a = fours[2 &* k], b = fours[2 &* k &+ 1]
        twos[k] = Vector(lowHalf: quarterHalves(a, high: false), highHalf: quarterHalves(b, high: false))
            + Vector(lowHalf: quarterHalves(a, high: true), highHalf: quarterHalves(b, high: true))
    }
    return Vector(lowHalf: twos[0].evenHalf, highHalf: twos[1].evenHalf) + Vector(lowHalf: twos[0].oddHalf, highHalf: twos[1].oddHalf)
}
