import Foundation
import TestSupport

/// Builds `.safetensors` bytes for tests: a header object (serialised with sorted keys) and raw data.
enum SafeTensorsBuilder {
    /// `header` as JSON after its 8-byte little-endian length, then `data`.
    static func file(header: [String: Any], data: [UInt8]) throws -> [UInt8] {
        let json = [UInt8](try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        return raw(headerText: json, data: data)
    }

    /// The file from raw header bytes (which need not be JSON); `declaredLength` overrides the
    /// length field (to test lying headers).
    static func raw(headerText: [UInt8], data: [UInt8], declaredLength: UInt64? = nil) -> [UInt8] {
        let length = declaredLength ?? UInt64(headerText.count)
        return (0 ..< 8).map { UInt8(truncatingIfNeeded: length >> (8 * UInt64($0))) } + headerText + data
    }

    /// One tensor entry `[begin, end)` of `shape`.
    static func entry(_ dtype: String = "F32", shape: [Int], begin: Int, end: Int) -> [String: Any] {
        ["dtype": dtype, "shape": shape, "data_offsets": [begin, end]]
    }

    /// Little-endian bytes of `values` as F32.
    static func f32(_ values: [Float]) -> [UInt8] {
        values.flatMap { value in (0 ..< 4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * UInt32($0))) } }
    }

    /// A committed fixture split into its header object and data bytes, for tests that alter it.
    static func parts(ofFixture path: String) throws -> (header: [String: Any], data: [UInt8]) {
        let bytes = try Fixtures.bytes(path)
        let length = (0 ..< 8).reduce(0) { $0 | Int(bytes[$1]) << (8 * $1) }
        let header = try JSONSerialization.jsonObject(with: Data(bytes[8 ..< 8 + length])) as? [String: Any] ?? [:]
        return (header, Array(bytes[(8 + length)...]))
    }
}
