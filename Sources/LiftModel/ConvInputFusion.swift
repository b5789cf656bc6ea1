import LiftTensor

extension Program {
    /// Removes the `concat` before a Winograd or dense 1×1 convolution and the `add` after a Winograd
    /// convolution where nothing else needs their results, so the convolution reads the concat's
    /// inputs in place and adds the residual in its epilogue (no concat buffer written and read back, no separate add pass).
    ///
    /// - A concat whose output only that conv reads (and is not a graph output) becomes the conv's
    ///   inputs: `concatenated` = the concat's input count.
    /// - An `add` without activation whose operand only a Winograd conv writes and only the add
    ///   reads takes that conv's place: the conv reads the other operand as a residual (appended to
    ///   its inputs) and writes the add's output. The residual must already exist when the conv runs,
    ///   so it must be the graph input or be written by an earlier step. A residual of shape
    ///   `[N|1, 1, 1, C]` is added right after the conv (`Program.Step.run`); the reverse broadcast
    ///   (the conv's output `[N, 1, 1, C]` added to a full map) cannot be written into the conv's
    ///   output and is reported by shape inference as a mismatch.
    /// Results are unchanged bit for bit: the conv adds the residual to the value it would have stored.
    static func fusingConvInputs(_ unfused: [Step], outputs: [Int], valueCount: Int) -> [Step] {
        var steps = unfused
        var readers = [Int](repeating: 0, count: valueCount)
        for step in steps { for value in step.inputs { readers[value] += 1 } }
        for value in outputs { readers[value] += 1 }
        var producer = [Int?](repeating: nil, count: valueCount)
        for (index, step) in steps.enumerated() { producer[step.output] = index }
        var removed = [Bool](repeating: false, count: steps.count)

        for index in steps.indices {
            guard case .conv(let conv) = steps[index].kernel, conv.readsConcatenatedInputs, steps[index].inputs.count == 1,
                  let source = producer[steps[index].inputs[0]], case .concat = steps[source].kernel,
                  readers[steps[index].inputs[0]] == 1
            else { continue }
            steps[index].inputs = steps[source].inputs
            steps[index].concatenated = steps[source].inputs.count
            removed[source] = true
        }

        for index in steps.indices {
            guard case .binary(.add, .none) = steps[index].kernel, steps[index].inputs.count == 2 else { continue }
            for (operand, other) in [(0, 1), (1, 0)] {
                let value = steps[index].inputs[operand], residual = steps[index].inputs[other]
                guard value != residual, readers[value] == 1, let conv = producer[value], !removed[conv],
                      case .conv(let kernel) = steps[conv].kernel, kernel.isWinograd, !steps[conv].addsResidual,
                      residual == 0 || (producer[residual].map { $0 < conv } ?? false)
                else { continue }
                steps[conv].inputs.append(residual)
                steps[conv].addsResidual = true
                steps[conv].output = steps[index].output
                producer[steps[index].output] = conv
                removed[index] = true
                break
            }
        }
        return steps.indices.filter { !removed[$0] }.map { steps[$0] }
    }
}
