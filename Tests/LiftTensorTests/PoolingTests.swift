import LiftTensor
import Testing
import TestSupport

struct PoolCase: CustomStringConvertible, Sendable {
    var name: String
    var h: Int, w: Int, c: Int
    var pool: Pool2D
    var description: String { name }
}

let poolCases: [PoolCase] = [
    .init(name: "max 2x2 s2 ceil odd", h: 7, w: 9, c: 17, pool: .init(kind: .max, kernelHeight: 2, kernelWidth: 2, ceilMode: true)),
    .init(name: "max 2x2 s2 floor odd", h: 7, w: 9, c: 17, pool: .init(kind: .max, kernelHeight: 2, kernelWidth: 2)),
    .init(name: "avg 2x2 s2 ceil exclude pad", h: 5, w: 11, c: 33, pool: .init(kind: .average, kernelHeight: 2, kernelWidth: 2, ceilMode: true)),
    .init(name: "avg 3x3 s2 pad 1 ceil include pad", h: 8, w: 7, c: 5,
          pool: .init(kind: .average, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2,
                      padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)), ceilMode: true, countIncludePad: true)),
    .init(name: "avg 3x3 s1 pad 1 exclude pad", h: 1, w: 6, c: 16,
          pool: .init(kind: .average, kernelHeight: 3, kernelWidth: 3, strideY: 1, strideX: 1,
                      padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)))),
    .init(name: "max 3x3 s2 pad 1 on 1×1", h: 1, w: 1, c: 3,
          pool: .init(kind: .max, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2,
                      padding: .explicit(.init(top: 1, left: 1, bottom: 1, right: 1)))),
]

@Test(arguments: poolCases)
func pool2DMatchesReference(_ c: PoolCase) throws {
    var values = SeededValues(seed: 5)
    let input = values.tensor(2, c.h, c.w, c.c)
    let padding = c.pool.padding(for: input.shape)
    let expected = ReferenceKernels.pool2d(input: input, isMax: c.pool.kind == .max, kernel: (c.pool.kernelHeight, c.pool.kernelWidth),
                                           stride: (c.pool.strideY, c.pool.strideX), padding: padding,
                                           ceilMode: c.pool.ceilMode, countIncludePad: c.pool.countIncludePad)
    let shape = try #require(c.pool.outputShape(for: input.shape))
    #expect(shape == expected.shape)
    let output = Tensor(shape: shape)
    c.pool.run(input: input, output: output, threads: 2)
    // Max is exact; averages of ≤ 9 values differ from the Double mean by rounding only.
    #expect(maxAbsDifference(output, expected) <= (c.pool.kind == .max ? 0 : 1e-6))
}

@Test func pool2DSameMatchesTensorFlowSize() throws {
    let pool = Pool2D(kind: .max, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .same)
    #expect(pool.outputShape(for: TensorShape(n: 1, h: 15, w: 16, c: 4)) == TensorShape(n: 1, h: 8, w: 8, c: 4))
}

@Test(arguments: [(1, 1, 5), (6, 7, 19), (3, 40, 64)])
func globalAveragePoolMatchesReference(h: Int, w: Int, c: Int) {
    var values = SeededValues(seed: UInt64(h * 100 + w))
    let input = values.tensor(2, h, w, c)
    let output = Tensor(shape: GlobalAveragePool.outputShape(for: input.shape))
    GlobalAveragePool.run(input: input, output: output, threads: 2)
    #expect(maxAbsDifference(output, ReferenceKernels.globalAveragePool(input: input)) <= 1e-5)
}
