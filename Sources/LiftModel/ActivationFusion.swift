import LiftTensor

extension Graph {
    /// Fuses each standalone relu / relu6 / hardswish / sigmoid into the conv, transposed conv,
    /// add/mul/sub or bilinear resize that produces its input, when that node has no activation yet and the activation is
    /// the only reader of its output (and the output is not a graph output). Results are unchanged:
    /// the producer applies the same function to each value it writes.
    mutating func fuseActivations() {
        var readers = [Int](repeating: 0, count: valueNames.count)
        for node in nodes { for value in node.inputs { readers[value] += 1 } }
        for value in outputs { readers[value] += 1 }
        var producer = [Int?](repeating: nil, count: valueNames.count)
        var removed = [Bool](repeating: false, count: nodes.count)
        for index in nodes.indices {
            let node = nodes[index]
            producer[node.output] = index
            guard case .unary(let unary) = node.operation, let activation = Activation(rawValue: unary.rawValue),
                  let source = producer[node.inputs[0]], readers[node.inputs[0]] == 1,
                  nodes[source].operation.fusedActivation == Activation.none
            else { continue }
            nodes[source].operation = nodes[source].operation.fusing(activation)
            nodes[source].output = node.output
            producer[node.output] = source
            removed[index] = true
        }
        nodes = nodes.indices.filter { !removed[$0] }.map { nodes[$0] }
    }
}
