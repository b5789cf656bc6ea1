/// Why a `.safetensors` file could not be read. Each case names the tensor (where there is one) and
/// what was wrong; `description` is a sentence for people.
public enum SafeTensorsError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read from disk.
    case unreadable(path: String, reason: String)
    /// The file is larger than `WeightLimits.maxFileBytes`.
    case fileTooLarge(byteCount: Int, limit: Int)
    /// The file is shorter than the 8-byte header length.
    case fileTooSmall(byteCount: Int)
    /// The declared header length exceeds `WeightLimits.maxHeaderBytes`.
    case headerTooLarge(declared: UInt64, limit: Int)
    /// The declared header runs past the end of the file.
    case headerPastEndOfFile(declared: UInt64, fileSize: Int)
    /// The header is not a JSON object.
    case headerNotJSON(reason: String)
    /// `__metadata__` is not a map from strings to strings.
    case invalidMetadata(key: String, reason: String)
    /// The header lists more tensors than `WeightLimits.maxTensors`.
    case tooManyTensors(count: Int, limit: Int)
    /// A tensor entry lacks a field or has one of the wrong type.
    case invalidEntry(tensor: String, reason: String)
    /// A tensor has a dtype that safetensors does not define.
    case unknownDType(tensor: String, dtype: String)
    /// A tensor's shape has a negative dimension, too many dimensions, or an element count that overflows.
    case invalidShape(tensor: String, shape: [Int], reason: String)
    /// A tensor's `data_offsets` are reversed or run past the data section (a truncated file).
    case offsetsOutOfBounds(tensor: String, begin: Int, end: Int, dataSize: Int)
    /// A tensor's byte range does not match its shape times the dtype size.
    case byteCountMismatch(tensor: String, shape: [Int], dtype: String, expected: Int, actual: Int)
    /// Two tensors overlap, or a gap lies between consecutive tensors.
    case notContiguous(tensor: String, begin: Int, expectedBegin: Int)
    /// Bytes follow the last tensor that no tensor claims.
    case trailingBytes(count: Int)
    /// A tensor was asked for that the file does not contain.
    case missingTensor(name: String)
    /// A tensor's dtype cannot be converted to Float32 (only F32, F16 and BF16 can).
    case unsupportedDType(tensor: String, dtype: String)
    /// The file's sha256 is not the one recorded for it (`WeightsManifest`): damaged or changed.
    case digestMismatch(path: String, expected: String, actual: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "Cannot read the weight file \(path): \(reason)."
        case .fileTooLarge(let count, let limit):
            return "The weight file has \(count) bytes, more than the limit of \(limit)."
        case .fileTooSmall(let count):
            return "The weight file has only \(count) bytes; a safetensors file starts with an 8-byte header length."
        case .headerTooLarge(let declared, let limit):
            return "The safetensors header declares \(declared) bytes, more than the limit of \(limit)."
        case .headerPastEndOfFile(let declared, let size):
            return "The safetensors header declares \(declared) bytes but the file has only \(size) bytes (truncated?)."
        case .headerNotJSON(let reason):
            return "The safetensors header is not a JSON object: \(reason)."
        case .invalidMetadata(let key, let reason):
            return "The safetensors metadata entry \"\(key)\" is invalid: \(reason)."
        case .tooManyTensors(let count, let limit):
            return "The weight file lists \(count) tensors, more than the limit of \(limit)."
        case .invalidEntry(let tensor, let reason):
            return "The header entry of tensor \"\(tensor)\" is invalid: \(reason)."
        case .unknownDType(let tensor, let dtype):
            return "Tensor \"\(tensor)\" has the unknown dtype \"\(dtype)\"."
        case .invalidShape(let tensor, let shape, let reason):
            return "Tensor \"\(tensor)\" has an invalid shape \(shape): \(reason)."
        case .offsetsOutOfBounds(let tensor, let begin, let end, let size):
            return "Tensor \"\(tensor)\" spans bytes \(begin)..<\(end) but the data section has \(size) bytes"
                + (end > size ? " (the file is truncated)." : ".")
        case .byteCountMismatch(let tensor, let shape, let dtype, let expected, let actual):
            return "Tensor \"\(tensor)\" (\(dtype), shape \(shape)) needs \(expected) bytes but spans \(actual)."
        case .notContiguous(let tensor, let begin, let expected):
            return "Tensor \"\(tensor)\" starts at byte \(begin) but the previous tensor ends at \(expected) (overlap or gap)."
        case .trailingBytes(let count):
            return "\(count) bytes after the last tensor belong to no tensor."
        case .missingTensor(let name):
            return "The weight file has no tensor \"\(name)\"."
        case .unsupportedDType(let tensor, let dtype):
            return "Tensor \"\(tensor)\" is stored as \(dtype); only F32, F16 and BF16 convert to Float32."
        case let .digestMismatch(path, expected, actual):
            return "\(path) has sha256 \(actual), not the \(expected) recorded in \(WeightsManifest.fileName) beside it: "
                + "the file is damaged or was changed; restore it (git checkout -- \(path)), or remove its line from "
                + "\(WeightsManifest.fileName) if the change is yours"
        }
    }
}
