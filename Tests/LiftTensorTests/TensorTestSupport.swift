import LiftTensor

/// A seeded xorshift generator, so every test input is the same on every run.
struct SeededValues {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    /// A float uniformly in `-scale ... scale`.
    mutating func next(scale: Float = 1) -> Float {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * scale
    }

    /// A seed for another generator, drawn from this one.
    mutating func seed() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    mutating func array(_ count: Int, scale: Float = 1) -> [Float] {
        (0 ..< count).map { _ in next(scale: scale) }
    }

    mutating func tensor(_ n: Int, _ h: Int, _ w: Int, _ c: Int, scale: Float = 1) -> Tensor {
        Tensor(shape: TensorShape(n: n, h: h, w: w, c: c), values: array(n * h * w * c, scale: scale))
    }
}

/// True when both tensors have the same shape and bit-identical elements.
func bitIdentical(_ a: Tensor, _ b: Tensor) -> Bool {
    a.shape == b.shape && (0 ..< a.count).allSatisfy { a.data[$0].bitPattern == b.data[$0].bitPattern }
}

/// Runs `body` (which writes into the tensor it is given, on the given thread count) at 1 thread
/// and, with splitting forced on small work, at 3 then 2 threads into a second buffer: true when
/// every run gives the same bits (the repeated run also shows no state carries between runs).
func sameBitsAtAnyThreadCount(shape: TensorShape, _ body: (Tensor, Int) -> Void) -> Bool {
    let one = Tensor(shape: shape), many = Tensor(shape: shape)
    body(one, 1)
    WorkGate.$splitsAnyWork.withValue(true) { body(many, 3) }
    guard bitIdentical(one, many) else { return false }
    WorkGate.$splitsAnyWork.withValue(true) { body(many, 2) }
    return bitIdentical(one, many)
}
