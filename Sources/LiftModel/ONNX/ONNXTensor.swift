/// A constant tensor of an ONNX file (an initializer or a `Constant`'s value) with its data as
/// little-endian bytes, whichever of the schema's fields held it (`raw_data`, `float_data`,
/// `int32_data`, `int64_data`, `double_data`, `uint64_data`).
public struct ONNXTensor: Sendable, Equatable {
    /// The tensor's name.
    public var name = ""
    /// Dimensions, outermost first (none for a scalar).
    public var dims: [Int] = []
    /// `TensorProto.DataType`: 1 float, 2 uint8, 3 int8, 4 uint16, 5 int16, 6 int32, 7 int64, 9 bool,
    /// 10 float16, 11 double, 12 uint32, 13 uint64, 16 bfloat16 (8, strings, is not read).
    public var dataType = 0
    /// The elements as little-endian bytes (`elementCount × byteSize`).
    public var data: [UInt8] = []

    /// Bytes per element of each data type Lift reads.
    public static let byteSizes: [Int: Int] = [1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2]

    /// The schema's names of the data types, by number.
    public static let typeNames: [Int: String] = [1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
                                                  8: "string", 9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64",
                                                  16: "bfloat16"]

    /// The product of `dims` (1 for a scalar).
    public var elementCount: Int { dims.reduce(1, *) }

    /// The elements of a float (1), float16 (10) or double (11) tensor as Float32, or of an integer
    /// tensor converted; nil for other types.
    public var floats: [Float]? {
        switch dataType {
        case 1: Self.littleEndian(data, as: UInt32.self).map(Float.init(bitPattern:))
        case 10: Self.littleEndian(data, as: UInt16.self).map { Float(Float16(bitPattern: $0)) }
        case 11: Self.littleEndian(data, as: UInt64.self).map { Float(Double(bitPattern: $0)) }
        default: integers.map { $0.map(Float.init) }
        }
    }

    /// The elements of an integer or bool tensor as Int64; nil for floating-point types.
    public var integers: [Int64]? {
        switch dataType {
        case 2, 9: data.map { Int64($0) }
        case 3: data.map { Int64(Int8(bitPattern: $0)) }
        case 4: Self.littleEndian(data, as: UInt16.self).map { Int64($0) }
        case 5: Self.littleEndian(data, as: UInt16.self).map { Int64(Int16(bitPattern: $0)) }
        case 6: Self.littleEndian(data, as: UInt32.self).map { Int64(Int32(bitPattern: $0)) }
        case 7, 13: Self.littleEndian(data, as: UInt64.self).map { Int64(bitPattern: $0) }
        case 12: Self.littleEndian(data, as: UInt32.self).map { Int64($0) }
        default: nil
        }
    }

    /// A tensor from its parts (tests, importers).
    public init(name: String, dims: [Int], dataType: Int, data: [UInt8]) {
        self.name = name
        self.dims = dims
        self.dataType = dataType
        self.data = data
    }

    /// Reads a `TensorProto` in two passes: its name, type and shape first, then its data, so that no
    /// field can make the reader hold more than the shape needs (a packed field of millions of
    /// varints for a one-element tensor fails at the element past the shape, not after decoding).
    init(reader: ProtobufReader, limits: WeightLimits) throws(ONNXError) {
        var header = reader
        var external = false
        while let (field, value) = try header.next() {
            switch (field, value) {
            case (1, .varint(let dimension)):
                guard dims.count < limits.maxRank else { throw .limitExceeded(what: "dimensions in a tensor", limit: limits.maxRank) }
                dims.append(Int(Int64(bitPattern: dimension)))
            case (1, .bytes(let range)):
                dims += try header.packedVarints(range, limit: limits.maxRank - dims.count, what: "dimensions in a tensor")
                    .map { Int(Int64(bitPattern: $0)) }
            case (2, .varint(let type)): dataType = Int(truncatingIfNeeded: type)
            case (8, .bytes(let range)): name = header.string(range)
            case (13, _): external = true
            case (14, .varint(let location)): external = external || location == 1
            default: break
            }
        }
        if external { throw .invalidTensor(name: name, reason: "its data is stored outside the file (external data), which Lift does not read") }
        guard let size = Self.byteSizes[dataType] else {
            throw .invalidTensor(name: name, reason: "data type \(dataType) is not one Lift reads (numbers and bools only)")
        }
        var count = 1
        for dimension in dims {
            guard dimension >= 0 else { throw .invalidTensor(name: name, reason: "dimension \(dimension) is negative") }
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow, product <= limits.maxFileBytes else { throw .invalidTensor(name: name, reason: "its shape \(dims) is too large") }
            count = product
        }
        let expected = count * size
        let tooMuch = ONNXError.invalidTensor(name: name, reason: "it holds more values than its shape \(dims) has")
        var body = reader
        var raw: [UInt8]?
        var values: [UInt8] = []  // from the typed fields, little-endian, `size` bytes each
        while let (field, value) = try body.next() {
            switch (field, value) {
            case (9, .bytes(let range)):
                guard range.count <= expected else { throw tooMuch }
                raw = body.copy(range)
            case (4, .bytes(let range)), (10, .bytes(let range)):  // packed float / double
                guard values.count + range.count <= expected else { throw tooMuch }
                values += body.copy(range)
            case (4, .fixed32(let bits)):
                guard values.count + 4 <= expected else { throw tooMuch }
                values += Self.bytes(UInt64(bits), count: 4)
            case (10, .fixed64(let bits)):
                guard values.count + 8 <= expected else { throw tooMuch }
                values += Self.bytes(bits, count: 8)
            case (5, .bytes(let range)), (7, .bytes(let range)), (11, .bytes(let range)):
                let room = (expected - values.count) / size
                let numbers = try body.packedVarints(range, limit: room, what: "values in tensor \(name)")
                values += numbers.flatMap { Self.bytes($0, count: size) }
            case (5, .varint(let number)), (7, .varint(let number)), (11, .varint(let number)):
                guard values.count + size <= expected else { throw tooMuch }
                values += Self.bytes(number, count: size)
            default: break
            }
        }
        data = raw ?? values
        guard data.count == expected else {
            throw .invalidTensor(name: name, reason: "shape \(dims) needs \(expected) bytes of type \(dataType), the file holds \(data.count)")
        }
    }

    /// The low `count` bytes of `value`, least significant first.
    static func bytes(_ value: UInt64, count: Int) -> [UInt8] { (0 ..< count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

    /// `bytes` read as little-endian values of type `T` (any trailing partial value is dropped).
    static func littleEndian<T: FixedWidthInteger>(_ bytes: [UInt8], as: T.Type) -> [T] {
        let size = MemoryLayout<T>.size
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { start in
            (0 ..< size).reduce(T.zero) { $0 | T(bytes[start + $1]) << (8 * $1) }
        }
    }
}
