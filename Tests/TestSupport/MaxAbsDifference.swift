import LiftTensor

/// The largest |a[i] − b[i]| over two equally long sequences: the one parity measure of tests and
/// benchmarks. Lengths that differ give ∞ and any NaN difference gives NaN, so a check
/// `maxAbsDifference(a, b) <= tolerance` fails instead of comparing a prefix or skipping a NaN.
@inlinable
public func maxAbsDifference<A: Collection<Float>, B: Collection<Float>>(_ a: A, _ b: B) -> Float {
    guard a.count == b.count else { return .infinity }
    var worst: Float = 0
    for (x, y) in zip(a, b) {
        let difference = abs(x - y)
        if difference.isNaN { return .nan }
        worst = max(worst, difference)
    }
    return worst
}

/// `maxAbsDifference` over two tensors' elements; ∞ when their shapes differ.
public func maxAbsDifference(_ a: Tensor, _ b: Tensor) -> Float {
    guard a.shape == b.shape else { return .infinity }
    return maxAbsDifference(a.buffer, b.buffer)
}
