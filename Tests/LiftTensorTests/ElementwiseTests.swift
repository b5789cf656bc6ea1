import Foundation
import LiftTensor
import Testing
import TestSupport

@Test(arguments: BinaryOp.allCases, [TensorShape(n: 2, h: 3, w: 5, c: 19), TensorShape(n: 2, h: 1, w: 1, c: 19), TensorShape(n: 1, h: 1, w: 1, c: 19)])
func binaryOpMatchesReference(op: BinaryOp, bShape: TensorShape) {
    var values = SeededValues(seed: 13)
    let a = values.tensor(2, 3, 5, 19)
    let b = values.tensor(bShape.n, bShape.h, bShape.w, bShape.c)
    for activation in Activation.allCases {
        let output = Tensor(shape: a.shape)
        op.run(a: a, b: b, output: output, activation: activation, threads: 2)
        let expected = ReferenceKernels.binary(op, a: a, b: b, activation: activation)
        #expect(maxAbsDifference(output, expected) <= 1e-6, "\(op) \(activation)")
    }
}

@Test func binaryOpRunsInPlace() {
    var values = SeededValues(seed: 14)
    let a = values.tensor(1, 4, 4, 8), b = values.tensor(1, 1, 1, 8)
    let expected = ReferenceKernels.binary(.mul, a: a, b: b, activation: .none)
    BinaryOp.mul.run(a: a, b: b, output: a)
    #expect(maxAbsDifference(a, expected) == 0)
}

@Test(arguments: UnaryOp.allCases)
func unaryOpMatchesReference(op: UnaryOp) {
    let values = (0 ..< 301).map { Float($0 - 150) / 15 } // −10 … 10, through every kink
    let input = Tensor(shape: TensorShape(n: 1, h: 1, w: 301, c: 1), values: values)
    let output = Tensor(shape: input.shape)
    op.run(input: input, output: output, threads: 2)
    for (i, x) in values.enumerated() {
        #expect(abs(Double(output.data[i]) - ReferenceKernels.unary(Double(x), op)) <= 1e-6, "\(op)(\(x))")
    }
}

/// The fused sigmoid epilogue (16 lanes at a time through a polynomial exp) against the exact
/// logistic, over −100 … 100 (past the clamp at ±87) and with NaN propagated.
@Test func fusedSigmoidMatchesTheExactLogistic() {
    var values = (0 ..< 4001).map { Float($0 - 2000) / 20 }
    values.append(.nan)
    let input = Tensor(shape: TensorShape(n: 1, h: 1, w: values.count, c: 1), values: values)
    let zeros = Tensor(shape: input.shape, values: [Float](repeating: 0, count: values.count))
    let output = Tensor(shape: input.shape)
    BinaryOp.add.run(a: input, b: zeros, output: output, activation: .sigmoid, threads: 1)
    for (i, x) in values.enumerated() where !x.isNaN {
        let exact = 1 / (1 + Foundation.exp(-Double(x)))
        // About 2 ulp of Float near 1, and relative 1e-6 for tiny outputs.
        #expect(abs(Double(output.data[i]) - exact) <= max(2.5e-7, 1e-6 * exact), "sigmoid(\(x))")
    }
    #expect(output.data[values.count - 1].isNaN)
}

/// Parts of a unary op are whole vectors: any split gives the same bits, tail included.
@Test func unaryOpIsBitIdenticalAcrossThreadCounts() {
    var values = SeededValues(seed: 17)
    let input = values.tensor(1, 7, 9, 5)
    let one = Tensor(shape: input.shape), many = Tensor(shape: input.shape)
    for op in UnaryOp.allCases {
        op.run(input: input, output: one, threads: 1)
        WorkGate.$splitsAnyWork.withValue(true) { op.run(input: input, output: many, threads: 3) }
        #expect(bitIdentical(one, many), "\(op)")
    }
}

@Test func concatPlacesChannelsInOrder() throws {
    var values = SeededValues(seed: 15)
    let inputs = [values.tensor(2, 3, 4, 5), values.tensor(2, 3, 4, 16), values.tensor(2, 3, 4, 1), values.tensor(2, 3, 4, 35)]
    let shape = try #require(Concat.outputShape(for: inputs.map(\.shape)))
    let output = Tensor(shape: shape)
    Concat.run(inputs: inputs, output: output, threads: 2)
    #expect(maxAbsDifference(output, ReferenceKernels.concat(inputs)) == 0)
    #expect(Concat.outputShape(for: [TensorShape(n: 1, h: 2, w: 2, c: 1), TensorShape(n: 1, h: 2, w: 3, c: 1)]) == nil)
}

@Test func padFillsTheBorder() {
    var values = SeededValues(seed: 16)
    let input = values.tensor(2, 3, 4, 7)
    let padding = Padding(top: 2, left: 0, bottom: 1, right: 3)
    let output = Tensor(shape: Pad.outputShape(for: input.shape, padding: padding))
    Pad.run(input: input, output: output, padding: padding, value: -1.5, threads: 2)
    #expect(maxAbsDifference(output, ReferenceKernels.pad(input, padding, value: -1.5)) == 0)
}

@Test func tensorReshapesWithinCapacity() {
    let tensor = Tensor(shape: TensorShape(n: 1, h: 2, w: 2, c: 3), capacity: 100)
    tensor.reshape(to: TensorShape(n: 1, h: 5, w: 5, c: 4))
    #expect(tensor.count == 100)
    #expect(Int(bitPattern: tensor.data) % Tensor.alignment == 0)
    tensor.fill(2)
    #expect(tensor[0, 4, 4, 3] == 2)
}
