/// Maps an ONNX graph (`ONNXModel`) onto a `lift.graph/1` document and its weights, in one pass over
/// the nodes in file order (see `README.md` in this folder for the table of operators).
///
/// Every ONNX value becomes either a Lift tensor (ONNX's NCHW is NHWC in Lift) or a known value
/// (`ONNXKnownValue`: constants and shape arithmetic), which is folded away. `BatchNormalization`
/// after a `Conv` folds into its weight and bias; weights are rearranged OIHW → OHWI. Nodes that
/// do not lead to the chosen output are dropped. Operators it cannot map are collected, not thrown
/// at the first one: the error lists every one with its nodes. The result is a graph Lift's loader
/// then validates like any other file.
public struct ONNXImporter {
    /// The imported graph.
    public struct Result: Sendable {
        /// The `lift.graph/1` document (compact JSON).
        public var graph: String
        /// The weight tensors the document names.
        public var tensors: [SafeTensorsWriter.Tensor]
        /// The graph input's ONNX name.
        public var inputName: String
        /// The input's height and width in pixels, nil where the file leaves them open.
        public var inputHeight: Int?
        public var inputWidth: Int?
        /// Name of the output the graph computes (the chosen ONNX output, or the value it aliases).
        public var outputName: String
        /// Lift nodes in the graph.
        public var nodeCount: Int
        /// `BatchNormalization` nodes folded into the convolution before them.
        public var foldedBatchNormalizations: Int
    }

    /// Imports `model`, computing the graph output named `output` (default: the first).
    /// - Throws: `ONNXError.unsupportedOperators`, `.unsupportedNode` or `.unsupportedGraph`.
    public static func importGraph(_ model: ONNXModel, output: String? = nil) throws(ONNXError) -> Result {
        var importer = ONNXImporter(model: model)
        return try importer.run(output: output)
    }

    /// A Lift node being built.
    private struct LiftNode {
        var op: String
        var name: String
        var inputs: [String]
        var output: String
        var weights: [String: String] = [:]
        var attrs: [String: JSONValue] = [:]
    }

    private let model: ONNXModel
    private let opset: Int
    /// Constant tensors by name: initializers and `Constant` nodes' values.
    private var constants: [String: ONNXTensor] = [:]
    /// Known (folded) values by ONNX name.
    private var known: [String: ONNXKnownValue] = [:]
    /// Lift tensors by ONNX name: their Lift value name (an alias after folding) and channel count.
    private var tensors: [String: (name: String, channels: Int)] = [:]
    /// How many nodes (and graph outputs) read each ONNX value.
    private var readers: [String: Int] = [:]
    private var nodes: [LiftNode] = []
    /// Index in `nodes` of the node producing each Lift value.
    private var producer: [String: Int] = [:]
    private var weights: [String: SafeTensorsWriter.Tensor] = [:]
    /// Unsupported operators, in the order met, with their nodes.
    private var unsupported: [(op: String, nodes: [String])] = []
    private var foldedBatchNormalizations = 0

    private init(model: ONNXModel) {
        self.model = model
        opset = model.opsets[""] ?? 0
        for tensor in model.graph.initializers { constants[tensor.name] = tensor }
        for node in model.graph.nodes { for input in node.inputs where !input.isEmpty { readers[input, default: 0] += 1 } }
        for output in model.graph.outputs { readers[output.name, default: 0] += 1 }
    }

    private mutating func run(output requested: String?) throws(ONNXError) -> Result {
        guard (7 ... 17).contains(opset) else {
            throw .unsupportedGraph(reason: "it uses operator set \(opset) of ai.onnx; Lift imports opsets 7–17")
        }
        let input = try graphInput()
        tensors[input.name] = (input.name, input.channels)
        for (index, node) in model.graph.nodes.enumerated() {
            try convert(node, index: index)
        }
        if !unsupported.isEmpty {
            throw .unsupportedOperators(unsupported.map { entry in
                let shown = entry.nodes.prefix(8).map { "node \($0)" }.joined(separator: ", ")
                return "\(entry.op) (\(shown)\(entry.nodes.count > 8 ? ", … \(entry.nodes.count) nodes" : ""))"
            })
        }
        guard let outputName = requested ?? model.graph.outputs.first?.name else { throw .unsupportedGraph(reason: "it declares no output") }
        guard model.graph.outputs.contains(where: { $0.name == outputName }) else {
            throw .unsupportedGraph(reason: "it has no output named \(outputName) (outputs: "
                + model.graph.outputs.map(\.name).joined(separator: ", ") + ")")
        }
        guard let result = tensors[outputName] else {
            throw .unsupportedGraph(reason: "its output \(outputName) is a constant, not computed from the input")
        }
        let kept = reachable(from: result.name)
        let graphNodes: [JSONValue] = kept.map { index in
            let node = nodes[index]
            var members: [String: JSONValue] = ["op": .string(node.op), "name": .string(node.name),
                                                "inputs": .array(node.inputs.map { .string($0) }), "outputs": .array([.string(node.output)])]
            if !node.weights.isEmpty { members["weights"] = .object(node.weights.mapValues { .string($0) }) }
            if !node.attrs.isEmpty { members["attrs"] = .object(node.attrs) }
            return .object(members)
        }
        let shape: [JSONValue] = [.int(1), .int(input.height ?? -1), .int(input.width ?? -1), .int(input.channels)]
        let document = JSONValue.object(["format": .string("lift.graph/1"),
                                         "inputs": .array([.object(["name": .string(input.name), "shape": .array(shape)])]),
                                         "outputs": .array([.string(result.name)]), "nodes": .array(graphNodes)])
        let usedWeights = Set(kept.flatMap { nodes[$0].weights.values })
        return Result(graph: document.jsonText, tensors: weights.values.filter { usedWeights.contains($0.name) }.sorted { $0.name < $1.name },
                      inputName: input.name, inputHeight: input.height, inputWidth: input.width, outputName: result.name,
                      nodeCount: kept.count, foldedBatchNormalizations: foldedBatchNormalizations)
    }

    /// The one graph input that is not an initializer: float, `[1 or symbolic, C, H, W]`.
    private func graphInput() throws(ONNXError) -> (name: String, channels: Int, height: Int?, width: Int?) {
        let inputs = model.graph.inputs.filter { constants[$0.name] == nil }
        guard inputs.count == 1, let input = inputs.first else {
            throw .unsupportedGraph(reason: "it has \(inputs.count) inputs (\(inputs.map(\.name).joined(separator: ", "))); Lift runs graphs of one image input")
        }
        guard input.elementType == nil || input.elementType == 1 else {
            throw .unsupportedGraph(reason: "its input \(input.name) holds \(ONNXTensor.typeNames[input.elementType ?? 0] ?? "type \(input.elementType ?? 0)"), not float")
        }
        guard let dims = input.shape, dims.count == 4, case .value(let channels) = dims[1], (1 ... 4096).contains(channels) else {
            throw .unsupportedGraph(reason: "its input \(input.name) has shape \(input.shape.map { "\($0)" } ?? "unknown"); Lift needs [1, C, H, W] with C known")
        }
        if case .value(let batch) = dims[0], batch != 1 {
            throw .unsupportedGraph(reason: "its input \(input.name) has a batch of \(batch); Lift runs one image at a time")
        }
        func side(_ dimension: ONNXValueInfo.Dimension) -> Int? {
            if case .value(let value) = dimension, value > 0 { return value }
            return nil
        }
        return (input.name, channels, side(dims[2]), side(dims[3]))
    }

    /// Indices of the nodes `output` depends on, in order.
    private func reachable(from output: String) -> [Int] {
        var needed: Set<String> = [output]
        var kept: [Int] = []
        for index in nodes.indices.reversed() where needed.contains(nodes[index].output) {
            kept.append(index)
            needed.formUnion(nodes[index].inputs)
        }
        return kept.reversed()
    }

    // MARK: - One node

    private mutating func convert(_ node: ONNXNode, index: Int) throws(ONNXError) {
        let name = node.name.isEmpty ? "\(node.opType)_\(index)" : node.name
        guard node.domain.isEmpty, let output = node.outputs.first, !output.isEmpty else {
            return markUnsupported(node.domain.isEmpty ? node.opType : "\(node.domain).\(node.opType)", name)
        }
        // A node reading a value no supported node computed is not the cause: its op is checked only.
        let missing = node.inputs.contains { !$0.isEmpty && tensors[$0] == nil && known[$0] == nil && constants[$0] == nil }
        if missing {
            if !Self.supportedOperators.contains(node.opType) { markUnsupported(node.opType, name) }
            return
        }
        let context = NodeContext(node: node, name: name)
        let needed = Self.requiredInputs[node.opType] ?? 1
        guard node.inputs.count >= needed else {
            throw context.fail("it has \(node.inputs.count) inputs; \(node.opType) needs at least \(needed)")
        }
        switch node.opType {
        case "Constant": try constant(context, output: output)
        case "Identity", "Dropout":
            if let tensor = tensors[node.inputs[0]] {
                tensors[output] = tensor
            } else if let value = constants[node.inputs[0]] {
                constants[output] = value
            } else {
                known[output] = try knownInput(context, 0)
            }
        case "Shape": try shape(context, output: output)
        case "Gather": known[output] = try gather(context)
        case "Unsqueeze", "Squeeze": known[output] = try squeeze(context, unsqueeze: node.opType == "Unsqueeze")
        case "Slice": known[output] = try slice(context)
        case "Cast": try cast(context, output: output)
        case "Floor", "Ceil":
            let value = try knownInput(context, 0)
            known[output] = ONNXKnownValue(dims: value.dims, elements: value.elements.map { element in
                if let number = element.number { return .number(node.opType == "Floor" ? number.rounded(.down) : number.rounded(.up)) }
                return node.opType == "Floor" ? .floor(element) : .difference(.number(0), .floor(.difference(.number(0), element)))
            }, isInteger: value.isInteger)
        case "Concat": try concat(context, output: output)
        case "Add", "Sub", "Mul", "Div": try arithmetic(context, output: output)
        case "Conv": try convolution(context, output: output)
        case "BatchNormalization": try batchNormalization(context, output: output)
        case "Relu", "Sigmoid", "Tanh", "HardSwish": try unary(context, op: node.opType == "HardSwish" ? "hardswish" : node.opType.lowercased(), output: output)
        case "HardSigmoid":
            guard abs(context.float("alpha", default: 0.2) - 1.0 / 6) < 1e-6, context.float("beta", default: 0.5) == 0.5 else {
                throw .unsupportedNode(node: name, op: node.opType, reason: "Lift's hardsigmoid is relu6(x + 3) / 6 (alpha 1/6, beta 0.5)")
            }
            try unary(context, op: "hardsigmoid", output: output)
        case "Clip": try clip(context, output: output)
        case "MaxPool", "AveragePool": try pool(context, output: output)
        case "GlobalAveragePool": try emit(context, op: "global_avg_pool", inputs: [try tensorInput(context, 0)], output: output, channels: try tensorInput(context, 0).channels)
        case "Resize", "Upsample": try resize(context, output: output)
        case "Pad": try pad(context, output: output)
        default: markUnsupported(node.opType, name)
        }
        // Shape arithmetic stays small: a chain of Concats must not double a list without bound.
        if let value = known[output], value.elements.count > Self.maxKnownElements || value.dims.count > 8 {
            throw context.fail("it folds to \(value.elements.count) values of rank \(value.dims.count), more than Lift folds "
                + "(\(Self.maxKnownElements) values, rank 8)")
        }
    }

    /// The most values one folded (known) value may hold.
    static let maxKnownElements = 1 << 16

    /// Inputs each operator needs at least, where that is not 1.
    static let requiredInputs: [String: Int] = ["Constant": 0, "Gather": 2, "Add": 2, "Sub": 2, "Mul": 2, "Div": 2, "Conv": 2,
                                                "BatchNormalization": 5]

    /// The operators `convert` maps.
    static let supportedOperators: Set<String> = [
        "Constant", "Identity", "Dropout", "Shape", "Gather", "Unsqueeze", "Squeeze", "Slice", "Cast", "Floor", "Ceil", "Concat",
        "Add", "Sub", "Mul", "Div", "Conv", "BatchNormalization", "Relu", "Sigmoid", "Tanh", "HardSwish", "HardSigmoid", "Clip",
        "MaxPool", "AveragePool", "GlobalAveragePool", "Resize", "Upsample", "Pad",
    ]

    private mutating func markUnsupported(_ op: String, _ node: String) {
        if let index = unsupported.firstIndex(where: { $0.op == op }) {
            unsupported[index].nodes.append(node)
        } else {
            unsupported.append((op, [node]))
        }
    }

    /// A node and its attributes, read with defaults.
    private struct NodeContext {
        let node: ONNXNode
        let name: String

        func ints(_ key: String) -> [Int]? {
            switch node.attribute(key) {
            case .ints(let values): values.map { Int(clamping: $0) }
            case .int(let value): [Int(clamping: value)]
            default: nil
            }
        }
        func int(_ key: String, default value: Int) -> Int {
            if case .int(let number) = node.attribute(key) { return Int(clamping: number) }
            return value
        }
        func float(_ key: String, default value: Float) -> Float {
            if case .float(let number) = node.attribute(key) { return number }
            return value
        }
        func string(_ key: String, default value: String) -> String {
            if case .string(let bytes) = node.attribute(key) { return String(decoding: bytes, as: UTF8.self) }
            return value
        }
        func fail(_ reason: String) -> ONNXError { .unsupportedNode(node: name, op: node.opType, reason: reason) }
    }

    // MARK: - Inputs

    /// Input `index` as a Lift tensor.
    private func tensorInput(_ context: NodeContext, _ index: Int) throws(ONNXError) -> (name: String, channels: Int) {
        guard index < context.node.inputs.count, let tensor = tensors[context.node.inputs[index]] else {
            throw context.fail("input \(index + 1) must be a tensor computed from the image, not a constant")
        }
        return tensor
    }

    /// Input `index` as a known value (a constant or folded shape arithmetic).
    private func knownInput(_ context: NodeContext, _ index: Int) throws(ONNXError) -> ONNXKnownValue {
        guard let value = optionalKnownInput(context, index) else {
            throw context.fail("input \(index + 1) must be a constant or computed from shapes; Lift folds such values and runs no arithmetic on image tensors here")
        }
        return value
    }

    /// Input `index` as a known value, nil when absent (or not known).
    private func optionalKnownInput(_ context: NodeContext, _ index: Int) -> ONNXKnownValue? {
        guard index < context.node.inputs.count, !context.node.inputs[index].isEmpty else { return nil }
        let name = context.node.inputs[index]
        if let value = known[name] { return value }
        guard let tensor = constants[name], tensor.elementCount <= 1 << 16, let numbers = tensor.floats else { return nil }
        return ONNXKnownValue(dims: tensor.dims, numbers: Self.numbers(of: tensor) ?? numbers.map(Double.init),
                              isInteger: tensor.integers != nil)
    }

    /// An integer tensor's values as exact Doubles (an Int64 through Float would lose digits).
    private static func numbers(of tensor: ONNXTensor) -> [Double]? {
        tensor.integers.map { $0.map { Double($0) } }
    }

    /// Input `index` as a weight: a constant float tensor (or a small constant folded by `Cast`…).
    private func weightInput(_ context: NodeContext, _ index: Int) throws(ONNXError) -> (dims: [Int], values: [Float]) {
        guard index < context.node.inputs.count else { throw context.fail("input \(index + 1) is missing") }
        let name = context.node.inputs[index]
        if let tensor = constants[name], let values = tensor.floats { return (tensor.dims, values) }
        if let value = known[name], let numbers = value.numbers { return (value.dims, numbers.map { Float($0) }) }
        throw context.fail("input \(index + 1) must be a constant weight tensor (an initializer)")
    }

    // MARK: - Known values

    private mutating func constant(_ context: NodeContext, output: String) throws(ONNXError) {
        switch context.node.attribute("value") {
        case .tensor(var tensor):
            tensor.name = output
            constants[output] = tensor
        default:
            if case .float(let value) = context.node.attribute("value_float") {
                known[output] = ONNXKnownValue(dims: [], numbers: [Double(value)], isInteger: false)
            } else if case .floats(let values) = context.node.attribute("value_floats") {
                known[output] = ONNXKnownValue(dims: [values.count], numbers: values.map(Double.init), isInteger: false)
            } else if case .int(let value) = context.node.attribute("value_int") {
                known[output] = ONNXKnownValue(dims: [], numbers: [Double(value)], isInteger: true)
            } else if case .ints(let values) = context.node.attribute("value_ints") {
                known[output] = ONNXKnownValue(dims: [values.count], numbers: values.map { Double($0) }, isInteger: true)
            } else {
                throw context.fail("it holds no numeric value Lift reads (value, value_float(s), value_int(s))")
            }
        }
    }

    private mutating func shape(_ context: NodeContext, output: String) throws(ONNXError) {
        var elements: [ONNXKnownValue.Element]
        if let tensor = tensors[context.node.inputs[0]] {
            elements = [.number(1), .number(Double(tensor.channels)), .size(value: tensor.name, axis: 2), .size(value: tensor.name, axis: 3)]
        } else {
            elements = try knownInput(context, 0).dims.map { .number(Double($0)) }
        }
        let rank = elements.count
        let start = Self.clampedIndex(context.int("start", default: 0), count: rank)
        let end = Self.clampedIndex(context.int("end", default: rank), count: rank)
        elements = start < end ? Array(elements[start ..< end]) : []
        known[output] = ONNXKnownValue(dims: [elements.count], elements: elements, isInteger: true)
    }

    /// A start or end index of a list of `count` (negative counts from the end), clamped to 0…count.
    private static func clampedIndex(_ index: Int, count: Int) -> Int {
        min(max(index < 0 ? index + count : index, 0), count)
    }

    private func gather(_ context: NodeContext) throws(ONNXError) -> ONNXKnownValue {
        let data = try knownInput(context, 0)
        guard let indices = try knownInput(context, 1).integers, data.dims.count == 1, context.int("axis", default: 0) == 0 else {
            throw context.fail("Lift folds Gather only on 1-D shape lists, with constant indices, along axis 0")
        }
        let count = data.elements.count
        var elements: [ONNXKnownValue.Element] = []
        for index in indices {
            let position = index < 0 ? index + count : index
            guard (0 ..< count).contains(position) else { throw context.fail("index \(index) is outside a list of \(count)") }
            elements.append(data.elements[position])
        }
        let indexDims = try knownInput(context, 1).dims
        return ONNXKnownValue(dims: indexDims, elements: elements, isInteger: data.isInteger)
    }

    private func squeeze(_ context: NodeContext, unsqueeze: Bool) throws(ONNXError) -> ONNXKnownValue {
        var value = try knownInput(context, 0)
        let axes = context.ints("axes") ?? optionalKnownInput(context, 1)?.integers
        if unsqueeze {
            guard let axes else { throw context.fail("it names no axes") }
            let rank = value.dims.count + axes.count
            for axis in axes.map({ $0 < 0 ? $0 + rank : $0 }).sorted() {
                guard (0 ... value.dims.count).contains(axis) else { throw context.fail("axis \(axis) is out of range") }
                value.dims.insert(1, at: axis)
            }
        } else {
            let rank = value.dims.count
            let removed = Set((axes ?? value.dims.indices.filter { value.dims[$0] == 1 }).map { $0 < 0 ? $0 + rank : $0 })
            guard removed.allSatisfy({ (0 ..< rank).contains($0) && value.dims[$0] == 1 }) else {
                throw context.fail("it squeezes an axis that is not of size 1")
            }
            value.dims = value.dims.indices.filter { !removed.contains($0) }.map { value.dims[$0] }
        }
        return value
    }

    private func slice(_ context: NodeContext) throws(ONNXError) -> ONNXKnownValue {
        let data = try knownInput(context, 0)
        let starts: [Int]?, ends: [Int]?, axes: [Int]?, steps: [Int]?
        if opset < 10 {
            (starts, ends, axes, steps) = (context.ints("starts"), context.ints("ends"), context.ints("axes"), nil)
        } else {
            starts = optionalKnownInput(context, 1)?.integers
            ends = optionalKnownInput(context, 2)?.integers
            axes = optionalKnownInput(context, 3)?.integers
            steps = optionalKnownInput(context, 4)?.integers
        }
        guard data.dims.count == 1, let start = starts?.first, let end = ends?.first, starts?.count == 1, ends?.count == 1,
              (axes ?? [0]).allSatisfy({ $0 == 0 || $0 == -1 }), let step = (steps ?? [1]).first, step != 0
        else {
            throw context.fail("Lift folds Slice only on 1-D shape lists with constant starts, ends and steps")
        }
        let count = data.elements.count
        var elements: [ONNXKnownValue.Element] = []
        if step > 0 {
            var position = Self.clampedIndex(start, count: count)
            let stop = Self.clampedIndex(end, count: count)
            while position < stop { elements.append(data.elements[position]); position += step }
        } else {
            var position = min(max(start < 0 ? start + count : start, -1), count - 1)
            let stop = min(max(end < 0 ? end + count : end, -1), count - 1)
            while position > stop { elements.append(data.elements[position]); position += step }
        }
        return ONNXKnownValue(dims: [elements.count], elements: elements, isInteger: data.isInteger)
    }

    private mutating func cast(_ context: NodeContext, output: String) throws(ONNXError) {
        let target = context.int("to", default: 0)
        if let tensor = tensors[context.node.inputs[0]] {
            guard target == 1 else { throw context.fail("it casts an image tensor to \(ONNXTensor.typeNames[target] ?? "type \(target)"); Lift computes in float") }
            tensors[output] = tensor
            return
        }
        var value = try knownInput(context, 0)
        let toInteger = [2, 3, 4, 5, 6, 7, 9, 12, 13].contains(target)
        if toInteger && !value.isInteger {
            value.elements = value.elements.map { element in
                if let number = element.number { return .number(number.rounded(.towardZero)) }
                return .floor(element)
            }
        }
        value.isInteger = toInteger
        known[output] = value
    }

    private mutating func concat(_ context: NodeContext, output: String) throws(ONNXError) {
        let inputs = context.node.inputs.filter { !$0.isEmpty }
        if !inputs.isEmpty, inputs.allSatisfy({ tensors[$0] != nil }) {
            let rankAxis = context.int("axis", default: 1)
            guard rankAxis == 1 || rankAxis == -3 else { throw context.fail("Lift concatenates image tensors along channels (axis 1) only, not axis \(rankAxis)") }
            let parts = inputs.compactMap { tensors[$0] }
            try emit(context, op: "concat", inputs: parts, output: output, channels: parts.reduce(0) { $0 + $1.channels })
            return
        }
        var elements: [ONNXKnownValue.Element] = []
        var isInteger = true
        for index in context.node.inputs.indices where !context.node.inputs[index].isEmpty {
            let part = try knownInput(context, index)
            guard part.dims.count == 1 else { throw context.fail("Lift folds Concat only on 1-D shape lists") }
            elements += part.elements
            isInteger = isInteger && part.isInteger
        }
        known[output] = ONNXKnownValue(dims: [elements.count], elements: elements, isInteger: isInteger)
    }

    private mutating func arithmetic(_ context: NodeContext, output: String) throws(ONNXError) {
        let op = context.node.opType
        if let a = tensors[context.node.inputs[0]], let b = tensors[context.node.inputs.count > 1 ? context.node.inputs[1] : ""] {
            guard op != "Div" else { throw context.fail("Lift has no division of two image tensors") }
            try emit(context, op: op.lowercased(), inputs: [a, b], output: output, channels: max(a.channels, b.channels))
            return
        }
        guard let result = ONNXKnownValue.combine(try knownInput(context, 0), try knownInput(context, 1), op) else {
            throw context.fail("its operands' shapes do not broadcast, or it divides by zero")
        }
        known[output] = result
    }

    // MARK: - Tensor operators

    /// Appends a Lift node computing ONNX value `output`.
    private mutating func emit(_ context: NodeContext, op: String, inputs: [(name: String, channels: Int)], output: String,
                               channels: Int, weights: [String: String] = [:], attrs: [String: JSONValue] = [:]) throws(ONNXError) {
        producer[output] = nodes.count
        nodes.append(LiftNode(op: op, name: context.name, inputs: inputs.map(\.name), output: output, weights: weights, attrs: attrs))
        tensors[output] = (output, channels)
    }

    private mutating func unary(_ context: NodeContext, op: String, output: String) throws(ONNXError) {
        let input = try tensorInput(context, 0)
        try emit(context, op: op, inputs: [input], output: output, channels: input.channels)
    }

    private mutating func clip(_ context: NodeContext, output: String) throws(ONNXError) {
        let low: Double?, high: Double?
        if opset < 11 {
            low = Double(context.float("min", default: -.infinity))
            high = Double(context.float("max", default: .infinity))
        } else {
            low = optionalKnownInput(context, 1)?.numbers?.first ?? (context.node.inputs.count > 1 && !context.node.inputs[1].isEmpty ? nil : -.infinity)
            high = optionalKnownInput(context, 2)?.numbers?.first ?? (context.node.inputs.count > 2 && !context.node.inputs[2].isEmpty ? nil : .infinity)
        }
        switch (low, high) {
        case (0, 6): try unary(context, op: "relu6", output: output)
        case (0, .infinity): try unary(context, op: "relu", output: output)
        default: throw context.fail("Lift maps Clip to relu (0, ∞) and relu6 (0, 6) only, not (\(low.map { "\($0)" } ?? "?"), \(high.map { "\($0)" } ?? "?"))")
        }
    }

    /// Lift padding for an ONNX `pads`/`auto_pad` pair of a 2-D window: `[top, left, bottom, right]`,
    /// `"same"` or `"valid"`.
    private func padding(_ context: NodeContext) throws(ONNXError) -> JSONValue {
        switch context.string("auto_pad", default: "NOTSET") {
        case "NOTSET":
            let pads = context.ints("pads") ?? [0, 0, 0, 0]
            guard pads.count == 4, pads.allSatisfy({ (0 ... 1 << 16).contains($0) }) else {
                throw context.fail("pads \(pads) are not four non-negative numbers (a 2-D window)")
            }
            // ONNX: [top, left, bottom, right] (x1_begin, x2_begin, x1_end, x2_end), as Lift's.
            return .array(pads.map { .int($0) })
        case "VALID": return .string("valid")
        case "SAME_UPPER": return .string("same")
        case let mode: throw context.fail("auto_pad \(mode) is not one Lift maps (NOTSET, VALID, SAME_UPPER)")
        }
    }

    /// A pair attribute of a 2-D window (`strides`, `dilations`), checked.
    private func pair(_ context: NodeContext, _ key: String) throws(ONNXError) -> JSONValue {
        let values = context.ints(key) ?? [1, 1]
        guard values.count == 2, values.allSatisfy({ (1 ... 1 << 16).contains($0) }) else {
            throw context.fail("\(key) \(values) are not two positive numbers (a 2-D window)")
        }
        return .array(values.map { .int($0) })
    }

    private mutating func convolution(_ context: NodeContext, output: String) throws(ONNXError) {
        let input = try tensorInput(context, 0)
        let (dims, values) = try weightInput(context, 1)
        let groups = context.int("group", default: 1)
        guard dims.count == 4, dims.allSatisfy({ $0 >= 1 }), groups >= 1, dims[0] % groups == 0, dims[1] * groups == input.channels else {
            throw context.fail("its weight \(dims) does not fit a 2-D convolution of \(input.channels) channels in \(groups) groups")
        }
        if let kernel = context.ints("kernel_shape"), kernel != [dims[2], dims[3]] {
            throw context.fail("kernel_shape \(kernel) differs from the weight's \(dims[2])×\(dims[3])")
        }
        var bias: [Float]?
        if context.node.inputs.count > 2, !context.node.inputs[2].isEmpty {
            let (biasDims, biasValues) = try weightInput(context, 2)
            guard biasDims == [dims[0]] else { throw context.fail("its bias has shape \(biasDims), expected [\(dims[0])]") }
            bias = biasValues
        }
        let weightName = "n\(nodes.count).weight"
        weights[weightName] = SafeTensorsWriter.Tensor(name: weightName, shape: [dims[0], dims[2], dims[3], dims[1]],
                                                       values: Self.ohwi(values, dims: dims))
        var roles = ["weight": weightName]
        if let bias {
            let biasName = "n\(nodes.count).bias"
            weights[biasName] = SafeTensorsWriter.Tensor(name: biasName, shape: [dims[0]], values: bias)
            roles["bias"] = biasName
        }
        try emit(context, op: "conv2d", inputs: [input], output: output, channels: dims[0], weights: roles,
                 attrs: ["stride": try pair(context, "strides"), "dilation": try pair(context, "dilations"),
                         "padding": try padding(context), "groups": .int(groups)])
    }

    /// OIHW weights rearranged to OHWI.
    private static func ohwi(_ values: [Float], dims: [Int]) -> [Float] {
        let (o, i, h, w) = (dims[0], dims[1], dims[2], dims[3])
        var result = [Float](repeating: 0, count: values.count)
        for a in 0 ..< o { for b in 0 ..< i { for y in 0 ..< h { for x in 0 ..< w {
            result[((a * h + y) * w + x) * i + b] = values[((a * i + b) * h + y) * w + x]
        } } } }
        return result
    }

    /// Folds into the convolution before it when that convolution's output is read by this node
    /// only; otherwise becomes a depthwise 1×1 convolution (scale as weight, shift as bias).
    private mutating func batchNormalization(_ context: NodeContext, output: String) throws(ONNXError) {
        let input = try tensorInput(context, 0)
        let parameters = try (1 ... 4).map { (index) throws(ONNXError) -> [Float] in try weightInput(context, index).values }
        guard input.channels >= 1, parameters.allSatisfy({ $0.count == input.channels }) else {
            throw context.fail("its scale, bias, mean and variance do not all have \(input.channels) values")
        }
        if context.node.outputs.dropFirst().contains(where: { !$0.isEmpty && readers[$0] != nil }) {
            throw context.fail("it is in training mode (its running statistics are read); Lift runs inference only")
        }
        let epsilon = context.float("epsilon", default: 1e-5)
        let scale = (0 ..< input.channels).map { parameters[0][$0] / (parameters[3][$0] + epsilon).squareRoot() }
        let shift = (0 ..< input.channels).map { parameters[1][$0] - parameters[2][$0] * scale[$0] }
        if let index = producer[input.name], nodes[index].op == "conv2d", readers[context.node.inputs[0]] == 1,
           !model.graph.outputs.contains(where: { $0.name == context.node.inputs[0] }),
           let weightName = nodes[index].weights["weight"], var weight = weights[weightName] {
            let perOutput = weight.values.count / input.channels
            for o in 0 ..< input.channels { for k in 0 ..< perOutput { weight.values[o * perOutput + k] *= scale[o] } }
            weights[weightName] = weight
            let biasName = nodes[index].weights["bias"] ?? "n\(index).bias"
            let oldBias = weights[biasName]?.values ?? [Float](repeating: 0, count: input.channels)
            weights[biasName] = SafeTensorsWriter.Tensor(name: biasName, shape: [input.channels],
                                                         values: (0 ..< input.channels).map { oldBias[$0] * scale[$0] + shift[$0] })
            nodes[index].weights["bias"] = biasName
            nodes[index].output = output
            producer[output] = index
            tensors[output] = (output, input.channels)
            foldedBatchNormalizations += 1
            return
        }
        let base = "n\(nodes.count)"
        weights[base + ".weight"] = SafeTensorsWriter.Tensor(name: base + ".weight", shape: [input.channels, 1, 1, 1], values: scale)
        weights[base + ".bias"] = SafeTensorsWriter.Tensor(name: base + ".bias", shape: [input.channels], values: shift)
        try emit(context, op: "conv2d", inputs: [input], output: output, channels: input.channels,
                 weights: ["weight": base + ".weight", "bias": base + ".bias"], attrs: ["groups": .int(input.channels)])
    }

    private mutating func pool(_ context: NodeContext, output: String) throws(ONNXError) {
        let input = try tensorInput(context, 0)
        guard let kernel = context.ints("kernel_shape"), kernel.count == 2, kernel.allSatisfy({ (1 ... 1 << 16).contains($0) }) else {
            throw context.fail("kernel_shape must be two positive numbers (a 2-D window)")
        }
        guard (context.ints("dilations") ?? [1, 1]) == [1, 1] else { throw context.fail("Lift pools without dilation") }
        if context.node.outputs.dropFirst().contains(where: { !$0.isEmpty && readers[$0] != nil }) {
            throw context.fail("its indices output is read; Lift computes the pooled values only")
        }
        var attrs: [String: JSONValue] = ["kernel": .array(kernel.map { .int($0) }), "stride": try pair(context, "strides"),
                                          "padding": try padding(context), "ceil_mode": .bool(context.int("ceil_mode", default: 0) != 0)]
        if context.node.opType == "AveragePool" { attrs["count_include_pad"] = .bool(context.int("count_include_pad", default: 0) != 0) }
        try emit(context, op: context.node.opType == "MaxPool" ? "max_pool2d" : "avg_pool2d", inputs: [input], output: output,
                 channels: input.channels, attrs: attrs)
    }

    private mutating func pad(_ context: NodeContext, output: String) throws(ONNXError) {
        let input = try tensorInput(context, 0)
        guard context.string("mode", default: "constant") == "constant" else { throw context.fail("Lift pads with a constant only") }
        let pads = opset < 11 ? context.ints("pads") : optionalKnownInput(context, 1)?.integers
        let value = opset < 11 ? Double(context.float("value", default: 0)) : optionalKnownInput(context, 2)?.numbers?.first ?? 0
        guard let pads, pads.count == 8, pads[0] == 0, pads[1] == 0, pads[4] == 0, pads[5] == 0,
              pads.allSatisfy({ (0 ... 1 << 16).contains($0) }) else {
            throw context.fail("Lift pads height and width by non-negative constant amounts only")
        }
        try emit(context, op: "pad", inputs: [input], output: output, channels: input.channels,
                 attrs: ["pads": .array([pads[2], pads[3], pads[6], pads[7]].map { .int($0) }), "value": .double(value)])
    }

    private mutating func resize(_ context: NodeContext, output: String) throws(ONNXError) {
        let input = try tensorInput(context, 0)
        let legacy = context.node.opType == "Upsample" || opset < 11
        let mode = context.string("mode", default: "nearest")
        let coordinates = legacy ? "asymmetric" : context.string("coordinate_transformation_mode", default: "half_pixel")
        let nearestMode = legacy ? "floor" : context.string("nearest_mode", default: "round_prefer_floor")
        let liftCoordinates: String
        switch (mode, coordinates, nearestMode) {
        case ("linear", "half_pixel", _), ("linear", "pytorch_half_pixel", _): liftCoordinates = "half_pixel"
        case ("linear", "align_corners", _): liftCoordinates = "align_corners"
        case ("linear", "asymmetric", _), ("bilinear", "asymmetric", _): liftCoordinates = "asymmetric"
        case ("nearest", "asymmetric", "floor"): liftCoordinates = "asymmetric"
        case ("nearest", "half_pixel", "round_prefer_ceil"), ("nearest", "pytorch_half_pixel", "round_prefer_ceil"): liftCoordinates = "half_pixel"
        case ("nearest", "align_corners", "round_prefer_ceil"): liftCoordinates = "align_corners"
        default:
            throw context.fail("mode \(mode) with coordinate_transformation_mode \(coordinates)"
                + (mode == "nearest" ? " and nearest_mode \(nearestMode)" : "") + " has no Lift equivalent")
        }
        let op = mode == "nearest" ? "resize_nearest" : "resize_bilinear"
        var attrs: [String: JSONValue] = ["coordinates": .string(liftCoordinates)]
        var inputs = [input]
        // Where the target comes from: Upsample's `scales` attribute (opset 7–8) or input 2; Resize's
        // `scales` (input 2 from opset 10 on, input 3 from opset 11) or `sizes` (input 4, opset 11+).
        let scalesIndex = context.node.opType == "Resize" && opset >= 11 ? 2 : 1
        let scales: ONNXKnownValue? = context.node.attribute("scales").flatMap { value in
            if case .floats(let list) = value { return ONNXKnownValue(dims: [list.count], numbers: list.map(Double.init), isInteger: false) }
            return nil
        } ?? optionalKnownInput(context, scalesIndex).flatMap { $0.elements.isEmpty ? nil : $0 }
        let sizes = context.node.opType == "Resize" && opset >= 11 ? optionalKnownInput(context, 3).flatMap { $0.elements.isEmpty ? nil : $0 } : nil
        if let sizes {
            guard sizes.elements.count == 4, sizes.elements[0] == .number(1) || sizes.elements[0] == .size(value: input.name, axis: 0),
                  sizes.elements[1] == .number(Double(input.channels)) else {
                throw context.fail("its sizes must keep the batch and channels (got \(sizes.elements.count) sizes)")
            }
            switch (sizes.elements[2], sizes.elements[3]) {
            case let (.number(h), .number(w)) where h >= 1 && w >= 1 && h.rounded() == h && w.rounded() == w:
                attrs["size"] = .array([.int(Int(h)), .int(Int(w))])
            case let (.size(a, 2), .size(b, 3)) where a == b:
                // A Lift value's name is the ONNX name of the value it was made for.
                guard let like = tensors[a] else { throw context.fail("its sizes name an unknown tensor") }
                inputs.append(like)
            default:
                throw context.fail("its sizes are neither constants nor another tensor's height and width, the two forms Lift runs")
            }
        } else if let scales {
            guard scales.elements.count == 4, scales.elements[0] == .number(1), scales.elements[1] == .number(1) else {
                throw context.fail("its scales must keep the batch and channels")
            }
            switch (scales.elements[2], scales.elements[3]) {
            case let (.number(h), .number(w)) where h > 0 && w > 0:
                if h == 1 && w == 1 {
                    tensors[output] = input
                    return
                }
                attrs["scale"] = .array([.double(h), .double(w)])
            case let (.quotient(.size(a, 2), .size(x, 2)), .quotient(.size(b, 3), .size(y, 3))) where a == b && x == input.name && y == input.name:
                guard let like = tensors[a] else { throw context.fail("its scales name an unknown tensor") }
                inputs.append(like)
            default:
                throw context.fail("its scales are neither constants nor the ratio of another tensor's size to its input's")
            }
        } else {
            throw context.fail("it has neither scales nor sizes")
        }
        try emit(context, op: op, inputs: inputs, output: output, channels: input.channels, attrs: attrs)
    }
}
