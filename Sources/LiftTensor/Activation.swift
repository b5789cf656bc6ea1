import LiftParallel
import Foundation

/// An activation fused into a kernel's output (after the bias), as named in `lift.graph/1`.
public enum Activation: String, Sendable, Hashable, CaseIterable {
    /// Identity.
    case none
    /// max(x, 0).
    case relu
    /// min(max(x, 0), 6).
    case relu6
    /// x · relu6(x + 3) / 6.
    case hardswish
    /// 1 / (1 + e^(−x)).
    case sigmoid

    /// The activation applied to one value.
    @inline(__always)
    public func apply(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return max(x, 0)
        case .relu6: return min(max(x, 0), 6)
        case .hardswish: return x * (min(max(x + 3, 0), 6) * (1 / 6))
        case .sigmoid: return logistic(x)
        }
    }

    /// The activation applied to 16 values at once (same results as `apply` lane by lane).
    /// `@_transparent` because the optimiser ignored `@inline(__always)` here inside the large tile
    /// functions, and the out-of-line call moved every SIMD16 through the stack (1×1 convs with 16
    /// input channels ran 25 % slower).
    @_transparent
    func apply(_ x: SIMD16<Float>) -> SIMD16<Float> {
        switch self {
        case .none: return x
        case .relu: return pointwiseMax(x, Vector())
        case .relu6: return clampRelu6(x)
        case .hardswish: return x * (clampRelu6(x + 3) * (1 / 6))
        case .sigmoid: return logisticLanes(x)
        }
    }
}

extension Activation {
    /// Applies the activation in place to the `count` floats at `values`, 16 at a time (the last
    /// partial vector through a copy, so nothing past `values + count` is read or written).
    @inline(__always)
    func apply(inPlace values: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i &+ vectorWidth <= count {
            storeVector(apply(loadVector(values + i)), values + i)
            i &+= vectorWidth
        }
        guard i < count else { return }
        var tail = InlineArray<16, Float>(repeating: 0)
        for lane in 0 ..< count &- i { tail[lane] = values[i &+ lane] }
        let result = unsafeBitCast(apply(unsafeBitCast(tail, to: Vector.self)), to: InlineArray<16, Float>.self)
        for lane in 0 ..< count &- i { values[i &+ lane] = result[lane] }
    }
}

/// `logistic` on each lane, through `expLanes` (within a few ulp of the scalar `logistic`); kept out
/// of line so that `Activation.apply` stays small enough to inline into every kernel's epilogue.
@inline(never)
func logisticLanes(_ x: SIMD16<Float>) -> SIMD16<Float> {
    1 / (1 + expLanes(-x))
}

/// e^x on 16 lanes, Cephes `expf`'s method: x = n·ln 2 + r with |r| ≤ ln 2 / 2 (ln 2 split in two
/// parts), e^r by a degree-6 polynomial, 2^n written into the exponent bits. About 1–2 ulp from
/// `expf`. Inputs are clamped to [−87, 88] so 2^n stays a normal float: outside that range the
/// result is e^−87 or e^88 instead of a denormal, zero or infinity. NaN stays NaN.
@inline(__always)
func expLanes(_ x: Vector) -> Vector {
    let clamped = pointwiseMin(pointwiseMax(x, Vector(repeating: -87)), Vector(repeating: 88))
    // Adding 1.5·2^23 rounds x·log2(e) to an integer n held in the low mantissa bits.
    let shifter: Float = 12_582_912
    let shifted = multiplyAdd(clamped, Vector(repeating: 1.442_695_04), Vector(repeating: shifter))
    let n = shifted - shifter
    var r = multiplyAdd(n, Vector(repeating: -0.693_359_375), clamped)
    r = multiplyAdd(n, Vector(repeating: 2.121_944_4e-4), r)
    var p = Vector(repeating: 1.987_569_15e-4)
    p = multiplyAdd(p, r, Vector(repeating: 1.398_199_950_7e-3))
    p = multiplyAdd(p, r, Vector(repeating: 8.333_451_907_3e-3))
    p = multiplyAdd(p, r, Vector(repeating: 4.166_579_589_4e-2))
    p = multiplyAdd(p, r, Vector(repeating: 1.666_666_545_9e-1))
    p = multiplyAdd(p, r, Vector(repeating: 5.000_000_120_1e-1))
    let y = multiplyAdd(p, r * r, r + 1)
    let exponent = (unsafeBitCast(shifted, to: SIMD16<UInt32>.self) &- shifter.bitPattern &+ 127) &<< 23
    return y * unsafeBitCast(exponent, to: Vector.self)
}

/// The logistic function 1 / (1 + e^(−x)), saturating cleanly for large |x|.
@inline(__always)
func logistic(_ x: Float) -> Float {
    1 / (1 + expf(-x))
}

/// A standalone element-wise function, as the `lift.graph/1` ops of the same names.
public enum UnaryOp: String, Sendable, Hashable, CaseIterable {
    /// max(x, 0).
    case relu
    /// min(max(x, 0), 6).
    case relu6
    /// 1 / (1 + e^(−x)).
    case sigmoid
    /// relu6(x + 3) / 6.
    case hardsigmoid
    /// x · relu6(x + 3) / 6.
    case hardswish
    /// tanh(x).
    case tanh

    /// The function applied to one value.
    @inline(__always)
    public func apply(_ x: Float) -> Float {
        switch self {
        case .relu: return max(x, 0)
        case .relu6: return min(max(x, 0), 6)
        case .sigmoid: return logistic(x)
        case .hardsigmoid: return min(max(x + 3, 0), 6) * (1 / 6)
        case .hardswish: return x * (min(max(x + 3, 0), 6) * (1 / 6))
        case .tanh: return tanhf(x)
        }
    }

    /// The function on 16 values at once; `tanh` (no vector form) goes lane by lane. The fused
    /// activations' vector forms, so `sigmoid` is `logisticLanes` (within a few ulp of `apply`).
    @inline(__always)
    func apply(_ x: Vector) -> Vector {
        switch self {
        case .relu: return Activation.relu.apply(x)
        case .relu6: return Activation.relu6.apply(x)
        case .sigmoid: return Activation.sigmoid.apply(x)
        case .hardsigmoid: return clampRelu6(x + 3) * (1 / 6)
        case .hardswish: return Activation.hardswish.apply(x)
        case .tanh:
            var result = x
            for lane in 0 ..< vectorWidth { result[lane] = tanhf(x[lane]) }
            return result
        }
    }

    /// Applies the function to every element of `input` and writes `output` (same shape; may be the
    /// same tensor as `input`). Works 16 values at a time (the last partial vector through a copy);
    /// parts are whole vectors, so every element is computed the same way for any thread count.
    public func run(input: Tensor, output: Tensor, threads: Int = Parallel.defaultThreads) {
        precondition(input.shape == output.shape, "\(rawValue): output shape \(output.shape) must equal input shape \(input.shape)")
        let source = UnsafePointer(input.data), destination = output.data, op = self, count = input.count
        let vectors = (count + vectorWidth - 1) / vectorWidth
        // Per vector: 64 bytes read and written; sigmoid's exp costs about as much as moving them.
        Parallel.forEach(count: vectors, threads: threads,
                         minimumPerPart: WorkGate.minimumItems(bytesPerItem: 2 * 4 * vectorWidth)) { range in
            for vector in range {
                let start = vector &* vectorWidth, lanes = min(vectorWidth, count &- start)
                if lanes == vectorWidth {
                    storeVector(op.apply(loadVector(source + start)), destination + start)
                } else {
                    var tail = Vector()
                    for lane in 0 ..< lanes { tail[lane] = source[start &+ lane] }
                    let result = op.apply(tail)
                    for lane in 0 ..< lanes { destination[start &+ lane] = result[lane] }
                }
            }
        }
    }
}
