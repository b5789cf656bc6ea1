import Foundation

/// A parsed JSON value, as found in a safetensors header and in the `lift.graph` document.
///
/// Numbers that are integers in the text decode as `.int`; others as `.double`.
enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `bytes` as one JSON document, or gives the parser's message on failure.
    static func parse(_ bytes: some Collection<UInt8>) -> Result<JSONValue, JSONParseFailure> {
        do {
            return .success(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)))
        } catch {
            return .failure(JSONParseFailure(message: String(describing: error)))
        }
    }

    /// The value as an `Int` (also a `.double` with an integral value that fits), else nil.
    var intValue: Int? {
        switch self {
        case .int(let v): return v
        case .double(let v) where v.rounded() == v && abs(v) < 9.0e15: return Int(v)
        default: return nil
        }
    }

    /// The value as a `Double` (`.int` or `.double`), else nil.
    var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    /// The string of a `.string`, else nil.
    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The flag of a `.bool`, else nil.
    var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements of an `.array`, else nil.
    var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members of an `.object`, else nil.
    var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// An array of integers, else nil.
    var intArray: [Int]? {
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
    var description: String {
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

/// Why a JSON document did not parse (the Foundation decoder's message).
struct JSONParseFailure: Error {
    let message: String
}

extension JSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: JSONKey.self) {
            var members: [String: JSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? single.decode(Int.self) {
            self = .int(i)
        } else if let d = try? single.decode(Double.self) {
            self = .double(d)
        } else {
            self = .string(try single.decode(String.self))
        }
    }
}

/// A coding key for arbitrary object member names.
private struct JSONKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
