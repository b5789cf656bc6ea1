import LiftTensor

extension Graph {
    /// The metadata key holding the graph document.
    static let metadataKey = "lift.graph"

    /// Decodes and validates the `lift.graph` document in `weights.metadata`, reading each node's
    /// weights from `weights` (converted to Float32) and checking their shapes against the op.
    init(weights: SafeTensors, limits: WeightLimits) throws {
        guard let text = weights.metadata[Self.metadataKey] else { throw GraphError.missingMetadata(key: Self.metadataKey) }
        let document: [String: JSONValue]
        switch JSONValue.parse(Array(text.utf8)) {
        case .failure(let failure): throw GraphError.invalidDocument(key: Self.metadataKey, reason: failure.message)
        case .success(let value):
            guard let object = value.objectValue else { throw GraphError.invalidDocument(key: Self.metadataKey, reason: "not a JSON object") }
            document = object
        }
        try Self.expectOnly(["format", "inputs", "outputs", "nodes"], in: document, of: "the graph")
        let format = document["format"]?.stringValue ?? "(absent)"
        guard format == "lift.graph/1" else { throw GraphError.unsupportedFormat(format) }
        guard let inputs = document["inputs"]?.arrayValue, inputs.count == 1 else {
            throw GraphError.invalidDocument(key: Self.metadataKey, reason: "\"inputs\" must list exactly one input")
        }
        input = try Self.decodeInput(inputs[0])
        guard let nodeList = document["nodes"]?.arrayValue else {
            throw GraphError.invalidDocument(key: Self.metadataKey, reason: "\"nodes\" is missing or not an array")
        }
        guard nodeList.count <= limits.maxNodes else { throw GraphError.tooManyNodes(count: nodeList.count, limit: limits.maxNodes) }
        guard let outputNames = document["outputs"]?.arrayValue?.compactMap(\.stringValue), !outputNames.isEmpty,
              outputNames.count == document["outputs"]?.arrayValue?.count
        else { throw GraphError.invalidDocument(key: Self.metadataKey, reason: "\"outputs\" must be a non-empty array of value names") }

        let tensors = WeightTensors(weights)
        var ids: [String: Int] = [input.name: 0]
        valueNames = [input.name]
        nodes = []
        nodes.reserveCapacity(nodeList.count)
        for (index, entry) in nodeList.enumerated() {
            guard let fields = entry.objectValue else { throw GraphError.invalidNode(node: "#\(index)", reason: "not a JSON object") }
            let name = fields["name"]?.stringValue ?? "#\(index)"
            try Self.expectOnly(["name", "op", "inputs", "outputs", "weights", "attrs"], in: fields, of: "node \"\(name)\"")
            guard let op = fields["op"]?.stringValue else { throw GraphError.invalidNode(node: name, reason: "\"op\" is missing or not a string") }
            let inputNames = try Self.stringList(fields["inputs"], node: name, field: "inputs")
            let outputs = try Self.stringList(fields["outputs"], node: name, field: "outputs")
            guard outputs.count == 1 else { throw GraphError.invalidNode(node: name, reason: "every op has exactly one output, got \(outputs.count)") }
            var inputIds: [Int] = []
            for value in inputNames {
                guard let id = ids[value] else { throw GraphError.undefinedValue(node: name, value: value) }
                inputIds.append(id)
            }
            guard ids[outputs[0]] == nil else { throw GraphError.duplicateValue(node: name, value: outputs[0]) }
            let weightRoles = try Self.weightRoles(fields["weights"], node: name)
            guard let attrValues = fields["attrs"].map({ $0.objectValue }) ?? [:] else {
                throw GraphError.invalidNode(node: name, reason: "\"attrs\" is not an object")
            }
            var decoder = NodeDecoder(node: name, op: op, inputCount: inputIds.count, roles: weightRoles,
                                      attributes: Attributes(node: name, values: attrValues), weights: tensors)
            let operation = try decoder.decode()
            ids[outputs[0]] = valueNames.count
            nodes.append(GraphNode(name: name, operation: operation, inputs: inputIds, output: valueNames.count))
            valueNames.append(outputs[0])
        }
        self.outputs = try outputNames.map { value in
            guard let id = ids[value], id != 0 else { throw GraphError.undefinedOutput(value: value) }
            return id
        }
    }

    /// Throws for a key outside `known`: a misspelt field (`"attr"` for `"attrs"`) would otherwise be
    /// ignored and the graph run without it.
    private static func expectOnly(_ known: Set<String>, in object: [String: JSONValue], of owner: String) throws {
        guard let unknown = object.keys.sorted().first(where: { !known.contains($0) }) else { return }
        let shown = unknown.count <= 40 ? unknown : unknown.prefix(40) + "…"
        throw GraphError.invalidDocument(key: metadataKey, reason: "\(owner) has the unknown key \"\(shown)\" (known: \(known.sorted().joined(separator: ", ")))")
    }

    private static func decodeInput(_ value: JSONValue) throws -> GraphInput {
        guard let fields = value.objectValue, let name = fields["name"]?.stringValue else {
            throw GraphError.invalidDocument(key: metadataKey, reason: "the input needs a \"name\"")
        }
        try expectOnly(["name", "shape"], in: fields, of: "the input \"\(name)\"")
        guard let shape = fields["shape"]?.intArray, shape.count == 4 else {
            throw GraphError.invalidInput(name: name, reason: "\"shape\" must be four integers [N, H, W, C]")
        }
        guard shape[0] == 1 else { throw GraphError.invalidInput(name: name, reason: "batch must be 1, got \(shape[0])") }
        for size in shape[1 ... 2] where size != -1 && !(1 ... 1 << 20).contains(size) {
            throw GraphError.invalidInput(name: name, reason: "H and W must be -1 (any) or 1…1048576, got \(size)")
        }
        guard (1 ... 1 << 16).contains(shape[3]) else {
            throw GraphError.invalidInput(name: name, reason: "channels must be 1…65536, got \(shape[3])")
        }
        return GraphInput(name: name, height: shape[1] == -1 ? nil : shape[1], width: shape[2] == -1 ? nil : shape[2],
                          channels: shape[3])
    }

    private static func stringList(_ value: JSONValue?, node: String, field: String) throws -> [String] {
        guard let items = value?.arrayValue else { throw GraphError.invalidNode(node: node, reason: "\"\(field)\" is missing or not an array") }
        return try items.map { item in
            guard let text = item.stringValue else { throw GraphError.invalidNode(node: node, reason: "\"\(field)\" holds a non-string") }
            return text
        }
    }

    private static func weightRoles(_ value: JSONValue?, node: String) throws -> [String: String] {
        guard let value else { return [:] }
        guard let object = value.objectValue else { throw GraphError.invalidNode(node: node, reason: "\"weights\" is not an object") }
        return try object.mapValues { tensor in
            guard let name = tensor.stringValue else { throw GraphError.invalidNode(node: node, reason: "\"weights\" maps a role to a non-string") }
            return name
        }
    }
}
