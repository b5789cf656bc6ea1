/// The SIMD helpers every kernel uses: 16-wide Float vectors loaded from and stored to raw floats.
typealias Vector = SIMD16<Float>

/// Lanes in a `Vector`; channel blocks in packed weights are this wide.
let vectorWidth = 16

/// `Vector`s the target's register file holds: 32 on AVX-512 (32 × 16 floats); 8 on AVX2 (16 × 8
/// floats, each `Vector` taking two registers) and on arm64 (32 × 4); 4 on the x86-64 baseline
/// (SSE2: 16 × 4 floats, a `Vector` in four registers). Register tiles (accumulators that must never
/// leave the registers) are sized from it. `LIFT_AVX512` and `LIFT_FMA` come from Package.swift,
/// which defines them only where it also sets the CPU target (never in a versioned checkout).
#if LIFT_AVX512
let registerVectors = 32
#elseif LIFT_FMA || arch(arm64)
let registerVectors = 8
#else
let registerVectors = 4
#endif

/// `addend + a · b` lane by lane, the kernels' multiply-add: one fused multiply-add where the target
/// has the instruction (`LIFT_FMA`; arm64 always), else a multiply and an add. Swift lowers
/// `addingProduct` for a target without FMA (the x86-64 baseline a build without CPU flags compiles
/// for) to a call of the C library's `fmaf` per lane, which made every convolution ~30× slower; the
/// multiply and add round twice, so such a build's floats differ from an FMA build's in the last bits.
@_transparent
func multiplyAdd(_ a: Vector, _ b: Vector, _ addend: Vector) -> Vector {
#if LIFT_FMA || arch(arm64)
    addend.addingProduct(a, b)
#else
    addend + a * b
#endif
}

/// `multiplyAdd` on 8 lanes.
@_transparent
func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ addend: SIMD8<Float>) -> SIMD8<Float> {
#if LIFT_FMA || arch(arm64)
    addend.addingProduct(a, b)
#else
    addend + a * b
#endif
}

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

/// Copies `count` consecutive floats: whole vectors, then plain stores (for the few channels of one
/// pixel, a memmove call each costs 10× for one channel and ~2× for 16–32 channels).
@inline(__always)
func copyFloats(_ from: UnsafePointer<Float>, _ to: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i &+ vectorWidth <= count {
        storeVector(loadVector(from + i), to + i)
        i &+= vectorWidth
    }
    while i < count { to[i] = from[i]; i &+= 1 }
}

/// Stores the first `lanes` (1…16) lanes of `value`: 8 and 4 lanes at a time, then single lanes
/// (lane-by-lane stores of the 8-lane tail of 24-, 72- or 88-channel tensors cost depthwise and 1×1
/// layers 10–30 %).
@inline(__always)
func storeVector(_ value: Vector, _ pointer: UnsafeMutablePointer<Float>, lanes: Int) {
    if lanes == vectorWidth {
        storeVector(value, pointer)
        return
    }
    let raw = UnsafeMutableRawPointer(pointer)
    var half = value.lowHalf, at = 0
    if lanes >= 8 {
        raw.storeBytes(of: half, as: SIMD8<Float>.self)
        half = value.highHalf
        at = 8
    }
    var quarter = half.lowHalf
    if lanes &- at >= 4 {
        raw.storeBytes(of: quarter, toByteOffset: at &* 4, as: SIMD4<Float>.self)
        quarter = half.highHalf
        at &+= 4
    }
    for lane in 0 ..< lanes &- at { pointer[at &+ lane] = quarter[lane] }
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
