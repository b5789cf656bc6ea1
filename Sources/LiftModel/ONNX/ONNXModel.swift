import Foundation
import LiftImage

/// An ONNX model file read into memory: its graph's nodes, initializers, inputs and outputs, as the
/// ONNX protobuf schema (`onnx.proto`, IR versions 3–10) defines them; a graph and an operator set
/// are required (so a file cut short between fields, which protobuf cannot tell, still fails). Reading checks the encoding,
/// every count against `WeightLimits` and every tensor's data against its type and shape; it does
/// not check that the graph makes sense (that is the importer's job). Sub-graphs (If, Loop) are not
/// read; tensors stored outside the file are refused.
public struct ONNXModel: Sendable {
    /// The IR version (`ir_version`).
    public var irVersion: Int = 0
    /// Operator-set versions by domain (`""` is the default domain, `ai.onnx`).
    public var opsets: [String: Int] = [:]
    /// `producer_name` and `producer_version`, joined by a space.
    public var producer = ""
    /// The main graph.
    public var graph = ONNXGraph()

    /// Reads the `.onnx` file at `url` (a regular file of at most `limits.maxFileBytes`).
    public init(contentsOf url: URL, limits: WeightLimits = .default) throws(ONNXError) {
        let bytes: [UInt8]
        do {
            bytes = try ImageIO.readFile(url.path, maxBytes: limits.maxFileBytes)
        } catch {
            switch error {
            case .cannotRead(_, let reason): throw .unreadable(path: url.path, reason: reason)
            default: throw .unreadable(path: url.path, reason: "it is larger than \(limits.maxFileBytes >> 20) MiB")
            }
        }
        try self.init(bytes: bytes, limits: limits)
    }

    /// Reads a model from the bytes of an `.onnx` file.
    public init(bytes: [UInt8], limits: WeightLimits = .default) throws(ONNXError) {
        let result: Result<ONNXModel, ONNXError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(ONNXError) {
                return .success(try ONNXModel(reader: ProtobufReader(buffer, range: 0 ..< buffer.count), limits: limits))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    private init(reader: ProtobufReader, limits: WeightLimits) throws(ONNXError) {
        var reader = reader
        var sawGraph = false
        var counts = ONNXGraph.Counts()
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, .varint(let version)): irVersion = Int(truncatingIfNeeded: version)
            case (2, .bytes(let range)): producer = reader.string(range) + (producer.isEmpty ? "" : " " + producer)
            case (3, .bytes(let range)): producer += (producer.isEmpty ? "" : " ") + reader.string(range)
            case (7, .bytes(let range)):
                graph = try ONNXGraph(reader: reader.nested(range), limits: limits, counts: &counts)
                sawGraph = true
            case (8, .bytes(let range)):
                var opset = reader.nested(range)
                var domain = "", version = 0
                while let (field, value) = try opset.next() {
                    if case (1, .bytes(let name)) = (field, value) { domain = opset.string(name) }
                    if case (2, .varint(let number)) = (field, value) { version = Int(truncatingIfNeeded: number) }
                }
                opsets[domain == "ai.onnx" ? "" : domain] = version
            default: break  // doc strings, metadata, functions, training info
            }
        }
        guard sawGraph else { throw .missingGraph }
        guard !opsets.isEmpty else { throw .missingOperatorSet }
    }
}

/// An ONNX graph: nodes in the file's (topological) order, constant tensors, and the graph's
/// inputs and outputs with their declared types.
public struct ONNXGraph: Sendable {
    /// The graph's name.
    public var name = ""
    /// The operations.
    public var nodes: [ONNXNode] = []
    /// Constant tensors (weights), by position in the file.
    public var initializers: [ONNXTensor] = []
    /// Declared inputs (initializers may be listed here too in older files).
    public var inputs: [ONNXValueInfo] = []
    /// Declared outputs.
    public var outputs: [ONNXValueInfo] = []

    /// Running totals across the file, checked against the limits as they grow.
    struct Counts {
        var nodes = 0
        var tensors = 0
    }

    init() {}

    init(reader: ProtobufReader, limits: WeightLimits, counts: inout Counts) throws(ONNXError) {
        var reader = reader
        while let (field, value) = try reader.next() {
            guard case .bytes(let range) = value else { continue }
            switch field {
            case 1:
                counts.nodes += 1
                guard counts.nodes <= limits.maxNodes else { throw .limitExceeded(what: "nodes", limit: limits.maxNodes) }
                nodes.append(try ONNXNode(reader: reader.nested(range), limits: limits, counts: &counts))
            case 2: name = reader.string(range)
            case 5:
                counts.tensors += 1
                guard counts.tensors <= limits.maxTensors else { throw .limitExceeded(what: "tensors", limit: limits.maxTensors) }
                initializers.append(try ONNXTensor(reader: reader.nested(range), limits: limits))
            case 11: inputs.append(try ONNXValueInfo(reader: reader.nested(range), limits: limits))
            case 12: outputs.append(try ONNXValueInfo(reader: reader.nested(range), limits: limits))
            default: break  // value_info, doc string, sparse initializers, quantization annotations
            }
        }
    }
}

/// One operation: its type (`Conv`, `Resize`…), operand and result names, and attributes.
public struct ONNXNode: Sendable {
    /// The node's name (may be empty).
    public var name = ""
    /// The operator (`op_type`).
    public var opType = ""
    /// The operator's domain (`""` for `ai.onnx`).
    public var domain = ""
    /// Input value names, in order (`""` for an omitted optional input).
    public var inputs: [String] = []
    /// Output value names, in order.
    public var outputs: [String] = []
    /// Attributes, in the file's order.
    public var attributes: [ONNXAttribute] = []

    /// The attribute called `name`, if the node has it.
    public func attribute(_ name: String) -> ONNXAttribute.Value? { attributes.first { $0.name == name }?.value }

    init(reader: ProtobufReader, limits: WeightLimits, counts: inout ONNXGraph.Counts) throws(ONNXError) {
        var reader = reader
        while let (field, value) = try reader.next() {
            guard case .bytes(let range) = value else { continue }
            switch field {
            case 1, 2:
                guard inputs.count + outputs.count < limits.maxTensors else {
                    throw .limitExceeded(what: "inputs and outputs of one node", limit: limits.maxTensors)
                }
                if field == 1 { inputs.append(reader.string(range)) } else { outputs.append(reader.string(range)) }
            case 3: name = reader.string(range)
            case 4: opType = reader.string(range)
            case 5: attributes.append(try ONNXAttribute(reader: reader.nested(range), limits: limits, counts: &counts))
            case 7: domain = reader.string(range) == "ai.onnx" ? "" : reader.string(range)
            default: break
            }
        }
    }
}

/// A node attribute: a number, text, a tensor, or a list of them.
public struct ONNXAttribute: Sendable {
    /// What an attribute holds.
    public enum Value: Sendable, Equatable {
        case float(Float)
        case int(Int64)
        case string([UInt8])
        case tensor(ONNXTensor)
        case floats([Float])
        case ints([Int64])
        case strings([[UInt8]])
        /// A sub-graph or another kind Lift does not read (the schema's `AttributeType` number).
        case unread(type: Int)
    }

    /// The attribute's name.
    public var name = ""
    /// Its value.
    public var value = Value.unread(type: 0)

    init(reader: ProtobufReader, limits: WeightLimits, counts: inout ONNXGraph.Counts) throws(ONNXError) {
        var reader = reader
        var type = 0
        var floats: [Float] = [], ints: [Int64] = [], strings: [[UInt8]] = []
        var single: Value?
        let maxList = limits.maxTensors
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, .bytes(let range)): name = reader.string(range)
            case (20, .varint(let number)): type = Int(truncatingIfNeeded: number)
            case (2, .fixed32(let bits)): single = .float(Float(bitPattern: bits))
            case (3, .varint(let number)): single = .int(Int64(bitPattern: number))
            case (4, .bytes(let range)): single = .string(reader.copy(range))
            case (5, .bytes(let range)):
                counts.tensors += 1
                guard counts.tensors <= limits.maxTensors else { throw .limitExceeded(what: "tensors", limit: limits.maxTensors) }
                single = .tensor(try ONNXTensor(reader: reader.nested(range), limits: limits))
            case (7, .fixed32(let bits)): floats.append(Float(bitPattern: bits))
            case (7, .bytes(let range)):
                guard range.count % 4 == 0 else { throw .malformed(offset: range.lowerBound, reason: "attribute \(name)'s floats are not whole 4-byte values") }
                floats += ONNXTensor.littleEndian(reader.copy(range), as: UInt32.self).map(Float.init(bitPattern:))
            case (8, .varint(let number)): ints.append(Int64(bitPattern: number))
            case (8, .bytes(let range)): ints += try reader.packedVarints(range, limit: maxList, what: "attribute values").map { Int64(bitPattern: $0) }
            case (9, .bytes(let range)): strings.append(reader.copy(range))
            default: break
            }
            guard floats.count + ints.count + strings.count <= maxList else { throw .limitExceeded(what: "attribute values", limit: maxList) }
        }
        switch type {
        case 6: value = .floats(floats)
        case 7: value = .ints(ints)
        case 8: value = .strings(strings)
        case 1, 2, 3, 4: value = single ?? .unread(type: type)
        default: value = single ?? (!ints.isEmpty ? .ints(ints) : !floats.isEmpty ? .floats(floats) : .unread(type: type))
        }
    }
}

/// A tensor's declared element type and shape, as a graph input or output states them.
public struct ONNXValueInfo: Sendable {
    /// One dimension: a number, a named symbol (`batch`), or nothing known.
    public enum Dimension: Sendable, Equatable, CustomStringConvertible {
        case value(Int)
        case symbol(String)
        case unknown

        public var description: String {
            switch self {
            case .value(let number): "\(number)"
            case .symbol(let name): name
            case .unknown: "?"
            }
        }
    }

    /// The value's name.
    public var name = ""
    /// `TensorProto.DataType` of the elements (1 float, 10 float16, 7 int64…), if declared.
    public var elementType: Int?
    /// The dimensions, if a shape is declared.
    public var shape: [Dimension]?

    init(reader: ProtobufReader, limits: WeightLimits) throws(ONNXError) {
        var reader = reader
        while let (field, value) = try reader.next() {
            guard case .bytes(let range) = value else { continue }
            if field == 1 { name = reader.string(range) }
            guard field == 2 else { continue }
            var type = reader.nested(range)
            while let (field, value) = try type.next() {
                guard field == 1, case .bytes(let tensorRange) = value else { continue }  // TypeProto.tensor_type
                var tensor = reader.nested(tensorRange)
                while let (field, value) = try tensor.next() {
                    if case (1, .varint(let elementType)) = (field, value) { self.elementType = Int(truncatingIfNeeded: elementType) }
                    guard field == 2, case .bytes(let shapeRange) = value else { continue }
                    var dimensions: [Dimension] = []
                    var shapeReader = reader.nested(shapeRange)
                    while let (field, value) = try shapeReader.next() {
                        guard field == 1, case .bytes(let dimensionRange) = value else { continue }
                        guard dimensions.count < limits.maxRank else { throw .limitExceeded(what: "dimensions in \(name)'s shape", limit: limits.maxRank) }
                        var dimension = Dimension.unknown
                        var dimensionReader = reader.nested(dimensionRange)
                        while let (field, value) = try dimensionReader.next() {
                            if case (1, .varint(let number)) = (field, value) { dimension = .value(Int(Int64(bitPattern: number))) }
                            if case (2, .bytes(let symbol)) = (field, value) { dimension = .symbol(reader.string(symbol)) }
                        }
                        dimensions.append(dimension)
                    }
                    shape = dimensions
                }
            }
        }
    }
}
