/// A parsed JSON value, as found in a safetensors header and in the `lift.graph` document.
///
/// Numbers that are integers in the text decode as `.int`; others as `.double`. Visible to Lift's
/// own modules and tests (`package`: `Lift` decodes the `lift.recipe` document with it), not part of
/// the library's API.
package enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `bytes` as one JSON document (`JSONParser`), or says where and why it is not one.
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<JSONValue, JSONParseFailure> {
        JSONParser.parse(bytes)
    }

    /// The value as an `Int` (also a `.double` with an integral value that fits), else nil.
    public var intValue: Int? {
        switch self {
        case .int(let v): return v
        case .double(let v) where v.rounded() == v && abs(v) < 9.0e15: return Int(v)
        default: return nil
        }
    }

    /// The value as a `Double` (`.int` or `.double`), else nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    /// The string of a `.string`, else nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The flag of a `.bool`, else nil.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements of an `.array`, else nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members of an `.object`, else nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// An array of integers, else nil.
    public var intArray: [Int]? {
        guard let items = arrayValue else { return nil }
        var result: [Int] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard let v = item.intValue else { return nil }
            result.append(v)
        }
        return result
    }

    /// Compact JSON-like text for error messages (long values are cut).
    public var description: String {
        let text: String
        switch self {
        case .null: text = "null"
        case .bool(let b): text = String(b)
        case .int(let v): text = String(v)
        case .double(let v): text = String(v)
        case .string(let s): text = "\"\(s)\""
        case .array(let a): text = "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o): text = "{" + o.keys.sorted().map { "\"\($0)\":\(o[$0]?.description ?? "")" }.joined(separator: ",") + "}"
        }
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}

/// Why a JSON document did not parse: the byte offset and what was wrong there.
package struct JSONParseFailure: Error {
    /// "at byte N: what was wrong".
    public let message: String
}
