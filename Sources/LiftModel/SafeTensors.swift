import Foundation
import LiftImage

/// A `.safetensors` file held in memory, its header validated: 8-byte little-endian header length N,
/// N bytes of JSON header, then the raw little-endian tensor data.
///
/// Every tensor's dtype, shape (rank, non-negative dimensions, overflow-checked element count) and
/// byte range (inside the data section, equal to element count × dtype size, tensors contiguous and
/// covering the data exactly) is checked at `init`, against `WeightLimits` and the file size, so
/// reading a tensor afterwards cannot go out of bounds.
public struct SafeTensors: Sendable {
    /// Element types defined by safetensors and their sizes in bytes.
    public enum DType: String, Sendable, CaseIterable {
        case f64 = "F64", f32 = "F32", f16 = "F16", bf16 = "BF16"
        case i64 = "I64", i32 = "I32", i16 = "I16", i8 = "I8"
        case u64 = "U64", u32 = "U32", u16 = "U16", u8 = "U8"
        case bool = "BOOL", f8e4m3 = "F8_E4M3", f8e5m2 = "F8_E5M2"

        /// Bytes per element.
        public var byteSize: Int {
            switch self {
            case .f64, .i64, .u64: return 8
            case .f32, .i32, .u32: return 4
            case .f16, .bf16, .i16, .u16: return 2
            case .i8, .u8, .bool, .f8e4m3, .f8e5m2: return 1
            }
        }
    }

    /// One tensor's header entry, validated.
    public struct TensorInfo: Sendable, Equatable {
        /// The tensor's name in the file.
        public let name: String
        /// Element type as stored.
        public let dtype: DType
        /// Dimensions, outermost first (rank 0 is a scalar).
        public let shape: [Int]
        /// Byte range in the data section (after the header).
        public let byteRange: Range<Int>
        /// Number of elements (the product of `shape`).
        public var elementCount: Int { byteRange.count / dtype.byteSize }
    }

    /// The header's `__metadata__` map (empty if absent).
    public let metadata: [String: String]
    /// Every tensor by name.
    public let tensors: [String: TensorInfo]

    private let bytes: [UInt8]
    private let dataStart: Int

    /// Reads and validates the file at `url`; its size is checked before it is read.
    public init(contentsOf url: URL, limits: WeightLimits = .default) throws {
        try self.init(bytes: try Self.readFile(url, limits: limits), limits: limits)
    }

    /// The bytes of the file at `url` (a regular file of at most `limits.maxFileBytes`, checked
    /// before reading).
    /// - Throws: `SafeTensorsError.unreadable` or `.fileTooLarge`.
    public static func readFile(_ url: URL, limits: WeightLimits = .default) throws(SafeTensorsError) -> [UInt8] {
        let path = url.path
        do {
            return try ImageIO.readFile(path, maxBytes: limits.maxFileBytes)
        } catch {
            switch error {
            case .cannotRead(_, let reason): throw .unreadable(path: path, reason: reason)
            case .fileTooLarge:
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
                throw .fileTooLarge(byteCount: size ?? limits.maxFileBytes + 1, limit: limits.maxFileBytes)
            default: throw .unreadable(path: path, reason: error.description)
            }
        }
    }

    /// Validates `bytes`, the whole content of a safetensors file.
    public init(bytes: [UInt8], limits: WeightLimits = .default) throws {
        guard bytes.count <= limits.maxFileBytes else {
            throw SafeTensorsError.fileTooLarge(byteCount: bytes.count, limit: limits.maxFileBytes)
        }
        guard bytes.count >= 8 else { throw SafeTensorsError.fileTooSmall(byteCount: bytes.count) }
        var declared: UInt64 = 0
        for i in 0 ..< 8 { declared |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        guard declared <= UInt64(limits.maxHeaderBytes) else {
            throw SafeTensorsError.headerTooLarge(declared: declared, limit: limits.maxHeaderBytes)
        }
        let headerLength = Int(declared)  // ≤ maxHeaderBytes, so it fits
        guard headerLength <= bytes.count - 8 else {
            throw SafeTensorsError.headerPastEndOfFile(declared: declared, fileSize: bytes.count)
        }
        let header: [String: JSONValue]
        switch JSONValue.parse(bytes[8 ..< 8 + headerLength]) {
        case .failure(let failure): throw SafeTensorsError.headerNotJSON(reason: failure.message)
        case .success(let value):
            guard let object = value.objectValue else { throw SafeTensorsError.headerNotJSON(reason: "the top level is not an object") }
            header = object
        }
        self.bytes = bytes
        dataStart = 8 + headerLength
        metadata = try Self.parseMetadata(header["__metadata__"])
        tensors = try Self.parseTensors(header, dataSize: bytes.count - dataStart, limits: limits)
    }

    /// Names of all tensors, sorted.
    public var names: [String] { tensors.keys.sorted() }

    /// The elements of tensor `name` converted to Float32 (from F32, F16 or BF16), in stored order.
    public func floats(_ name: String) throws -> [Float] {
        guard let info = tensors[name] else { throw SafeTensorsError.missingTensor(name: name) }
        let count = info.elementCount
        let start = dataStart + info.byteRange.lowerBound
        return try bytes.withUnsafeBytes { raw -> [Float] in
            let source = UnsafeRawBufferPointer(rebasing: raw[start ..< start + info.byteRange.count])
            switch info.dtype {
            case .f32:
                return [Float](unsafeUninitializedCapacity: count) { out, initialized in
                    for i in 0 ..< count {
                        out[i] = Float(bitPattern: UInt32(littleEndian: source.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)))
                    }
                    initialized = count
                }
            case .f16:
                return [Float](unsafeUninitializedCapacity: count) { out, initialized in
                    for i in 0 ..< count {
                        let bits = UInt16(littleEndian: source.loadUnaligned(fromByteOffset: i &* 2, as: UInt16.self))
                        out[i] = Float(Float16(bitPattern: bits))
                    }
                    initialized = count
                }
            case .bf16:
                return [Float](unsafeUninitializedCapacity: count) { out, initialized in
                    for i in 0 ..< count {
                        let bits = UInt16(littleEndian: source.loadUnaligned(fromByteOffset: i &* 2, as: UInt16.self))
                        out[i] = Float(bitPattern: UInt32(bits) << 16)
                    }
                    initialized = count
                }
            default:
                throw SafeTensorsError.unsupportedDType(tensor: name, dtype: info.dtype.rawValue)
            }
        }
    }

    private static func parseMetadata(_ value: JSONValue?) throws -> [String: String] {
        guard let value else { return [:] }
        guard let object = value.objectValue else {
            throw SafeTensorsError.invalidMetadata(key: "__metadata__", reason: "not an object")
        }
        var result: [String: String] = [:]
        for (key, entry) in object {
            guard let text = entry.stringValue else {
                throw SafeTensorsError.invalidMetadata(key: key, reason: "the value is not a string")
            }
            result[key] = text
        }
        return result
    }

    private static func parseTensors(_ header: [String: JSONValue], dataSize: Int,
                                     limits: WeightLimits) throws -> [String: TensorInfo] {
        let count = header.count - (header["__metadata__"] == nil ? 0 : 1)
        guard count <= limits.maxTensors else { throw SafeTensorsError.tooManyTensors(count: count, limit: limits.maxTensors) }
        var tensors: [String: TensorInfo] = [:]
        // Sorted, so the error for a file with several bad entries is always the same one.
        for name in header.keys.sorted() where name != "__metadata__" {
            if let entry = header[name] { tensors[name] = try parseEntry(name: name, entry: entry, dataSize: dataSize, limits: limits) }
        }
        // Tensors must tile the data section exactly, as the reference implementation requires.
        var expectedBegin = 0
        for info in tensors.values.sorted(by: { ($0.byteRange.lowerBound, $0.byteRange.upperBound, $0.name) < ($1.byteRange.lowerBound, $1.byteRange.upperBound, $1.name) }) {
            guard info.byteRange.lowerBound == expectedBegin else {
                throw SafeTensorsError.notContiguous(tensor: info.name, begin: info.byteRange.lowerBound, expectedBegin: expectedBegin)
            }
            expectedBegin = info.byteRange.upperBound
        }
        guard expectedBegin == dataSize else { throw SafeTensorsError.trailingBytes(count: dataSize - expectedBegin) }
        return tensors
    }

    private static func parseEntry(name: String, entry: JSONValue, dataSize: Int, limits: WeightLimits) throws -> TensorInfo {
        guard let fields = entry.objectValue else { throw SafeTensorsError.invalidEntry(tensor: name, reason: "not an object") }
        guard let dtypeName = fields["dtype"]?.stringValue else {
            throw SafeTensorsError.invalidEntry(tensor: name, reason: "\"dtype\" is missing or not a string")
        }
        guard let dtype = DType(rawValue: dtypeName) else { throw SafeTensorsError.unknownDType(tensor: name, dtype: dtypeName) }
        guard let shape = fields["shape"]?.intArray else {
            throw SafeTensorsError.invalidEntry(tensor: name, reason: "\"shape\" is missing or not an array of integers")
        }
        guard shape.count <= limits.maxRank else {
            throw SafeTensorsError.invalidShape(tensor: name, shape: shape, reason: "rank \(shape.count) exceeds the limit of \(limits.maxRank)")
        }
        var elements = 1
        for dimension in shape {
            guard dimension >= 0 else { throw SafeTensorsError.invalidShape(tensor: name, shape: shape, reason: "a dimension is negative") }
            let (product, overflow) = elements.multipliedReportingOverflow(by: dimension)
            guard !overflow else { throw SafeTensorsError.invalidShape(tensor: name, shape: shape, reason: "the element count overflows") }
            elements = product
        }
        guard let offsets = fields["data_offsets"]?.intArray, offsets.count == 2 else {
            throw SafeTensorsError.invalidEntry(tensor: name, reason: "\"data_offsets\" is missing or not two integers")
        }
        let (begin, end) = (offsets[0], offsets[1])
        guard begin >= 0, begin <= end, end <= dataSize else {
            throw SafeTensorsError.offsetsOutOfBounds(tensor: name, begin: begin, end: end, dataSize: dataSize)
        }
        let (expected, overflow) = elements.multipliedReportingOverflow(by: dtype.byteSize)
        guard !overflow, expected == end - begin else {
            throw SafeTensorsError.byteCountMismatch(tensor: name, shape: shape, dtype: dtypeName,
                                                     expected: overflow ? Int.max : expected, actual: end - begin)
        }
        return TensorInfo(name: name, dtype: dtype, shape: shape, byteRange: begin ..< end)
    }
}
