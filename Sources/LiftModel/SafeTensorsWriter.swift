/// Writes `.safetensors` files (the format `SafeTensors` reads): an 8-byte little-endian header
/// length, the JSON header padded with spaces to a multiple of 8 bytes, then the tensors' data.
/// Tensors are stored in name order and the header's keys are sorted, so the same tensors and
/// metadata always give the same bytes (as the Python writers in `Tools/` do).
public enum SafeTensorsWriter {
    /// One tensor to write: Float32 values in row-major order (`shape`'s product of them).
    public struct Tensor: Sendable, Equatable {
        /// The tensor's name in the file.
        public var name: String
        /// Dimensions, outermost first.
        public var shape: [Int]
        /// The values, row-major.
        public var values: [Float]

        /// A tensor from its parts; `values.count` must be the product of `shape`.
        public init(name: String, shape: [Int], values: [Float]) {
            precondition(shape.reduce(1, *) == values.count, "tensor \(name): \(values.count) values for shape \(shape)")
            self.name = name
            self.shape = shape
            self.values = values
        }
    }

    /// The element type the values are stored as.
    public enum Precision: String, Sendable {
        /// IEEE single precision (exact).
        case f32 = "F32"
        /// IEEE half precision, rounded to nearest even: half the size; values must be within ±65504.
        case f16 = "F16"
    }

    /// Why a file could not be written.
    public enum WriteError: Error, Equatable, CustomStringConvertible {
        /// A value is infinite or NaN, or too large for half precision.
        case notRepresentable(tensor: String, value: Float, precision: String)
        /// Two tensors have the same name.
        case duplicateName(String)

        public var description: String {
            switch self {
            case let .notRepresentable(tensor, value, precision):
                return "tensor \(tensor) holds \(value), which \(precision) cannot store as a finite number"
            case .duplicateName(let name): return "two tensors are named \(name)"
            }
        }
    }

    /// The bytes of a `.safetensors` file holding `tensors` and `metadata` (the header's `__metadata__`).
    /// - Throws: `WriteError` for non-finite values (or values past ±65504 in F16) and duplicate names.
    public static func bytes(tensors: [Tensor], metadata: [String: String], precision: Precision) throws(WriteError) -> [UInt8] {
        let sorted = tensors.sorted { $0.name < $1.name }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.name == b.name { throw .duplicateName(a.name) }
        let elementSize = precision == .f32 ? 4 : 2
        var header: [String: JSONValue] = [:]
        if !metadata.isEmpty { header["__metadata__"] = .object(metadata.mapValues { .string($0) }) }
        var offset = 0
        for tensor in sorted {
            let end = offset + tensor.values.count * elementSize
            header[tensor.name] = .object(["dtype": .string(precision.rawValue), "shape": .array(tensor.shape.map { .int($0) }),
                                           "data_offsets": .array([.int(offset), .int(end)])])
            offset = end
        }
        var headerBytes = Array(JSONValue.object(header).jsonText.utf8)
        headerBytes += [UInt8](repeating: 0x20, count: (8 - headerBytes.count % 8) % 8)
        var file: [UInt8] = []
        file.reserveCapacity(8 + headerBytes.count + offset)
        let length = UInt64(headerBytes.count)
        for byte in 0 ..< 8 { file.append(UInt8(truncatingIfNeeded: length >> (8 * UInt64(byte)))) }
        file += headerBytes
        for tensor in sorted {
            for value in tensor.values {
                guard value.isFinite else { throw .notRepresentable(tensor: tensor.name, value: value, precision: precision.rawValue) }
                switch precision {
                case .f32:
                    let bits = value.bitPattern
                    file += [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                             UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24)]
                case .f16:
                    let half = Float16(value)
                    guard half.isFinite else { throw .notRepresentable(tensor: tensor.name, value: value, precision: precision.rawValue) }
                    let bits = half.bitPattern
                    file += [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8)]
                }
            }
        }
        return file
    }
}
