import LiftTensor

/// Reads one node's `attrs` with typed errors, and rejects attributes the op does not know.
struct Attributes {
    let node: String
    private let values: [String: JSONValue]
    private var read: Set<String> = []

    init(node: String, values: [String: JSONValue]) {
        self.node = node
        self.values = values
    }

    private func invalid(_ key: String, _ value: JSONValue, _ reason: String) -> GraphError {
        .invalidAttribute(node: node, attribute: key, value: value.description, reason: reason)
    }

    /// A pair of integers ≥ `minimum` (`[a, b]`), or `defaultValue` when absent.
    mutating func pair(_ key: String, default defaultValue: (Int, Int)?, minimum: Int = 1) throws -> (Int, Int) {
        read.insert(key)
        guard let value = values[key] else {
            guard let defaultValue else { throw GraphError.invalidAttribute(node: node, attribute: key, value: "absent", reason: "required") }
            return defaultValue
        }
        guard let list = value.intArray, list.count == 2 else { throw invalid(key, value, "expected two integers") }
        guard list[0] >= minimum, list[1] >= minimum, list[0] <= 1 << 16, list[1] <= 1 << 16 else {
            throw invalid(key, value, "each must be between \(minimum) and 65536")
        }
        return (list[0], list[1])
    }

    /// An integer ≥ `minimum`, or `defaultValue` when absent.
    mutating func int(_ key: String, default defaultValue: Int, minimum: Int = 1) throws -> Int {
        read.insert(key)
        guard let value = values[key] else { return defaultValue }
        guard let v = value.intValue, v >= minimum, v <= 1 << 20 else { throw invalid(key, value, "expected an integer ≥ \(minimum)") }
        return v
    }

    /// A boolean, or `defaultValue` when absent.
    mutating func bool(_ key: String, default defaultValue: Bool) throws -> Bool {
        read.insert(key)
        guard let value = values[key] else { return defaultValue }
        guard let b = value.boolValue else { throw invalid(key, value, "expected true or false") }
        return b
    }

    /// A finite number, or `defaultValue` when absent.
    mutating func number(_ key: String, default defaultValue: Double) throws -> Double {
        read.insert(key)
        guard let value = values[key] else { return defaultValue }
        guard let d = value.doubleValue, d.isFinite else { throw invalid(key, value, "expected a finite number") }
        return d
    }

    /// `activation`: one of none, relu, relu6, hardswish, sigmoid (default none).
    mutating func activation() throws -> Activation {
        read.insert("activation")
        guard let value = values["activation"] else { return .none }
        guard let name = value.stringValue, let activation = Activation(rawValue: name) else {
            throw invalid("activation", value, "expected none, relu, relu6, hardswish or sigmoid")
        }
        return activation
    }

    /// `padding`: "valid", "same" or `[top, left, bottom, right]` (default valid).
    mutating func padding(_ key: String = "padding") throws -> PaddingMode {
        read.insert(key)
        guard let value = values[key] else { return .valid }
        switch value.stringValue {
        case "valid": return .valid
        case "same": return .same
        case .some: throw invalid(key, value, "expected \"valid\", \"same\" or four integers")
        case .none:
            return .explicit(try fourPads(key, value))
        }
    }

    /// `[top, left, bottom, right]`, each in 0…65536 (required).
    mutating func pads(_ key: String) throws -> Padding {
        read.insert(key)
        guard let value = values[key] else { throw GraphError.invalidAttribute(node: node, attribute: key, value: "absent", reason: "required") }
        return try fourPads(key, value)
    }

    private func fourPads(_ key: String, _ value: JSONValue) throws -> Padding {
        guard let list = value.intArray, list.count == 4, list.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else {
            throw invalid(key, value, "expected four integers [top, left, bottom, right] in 0…65536")
        }
        return Padding(top: list[0], left: list[1], bottom: list[2], right: list[3])
    }

    /// The raw value of `key`, if present.
    mutating func raw(_ key: String) -> JSONValue? {
        read.insert(key)
        return values[key]
    }

    /// Throws for the first attribute (in sorted order) that was never read: the op does not know it.
    func finish() throws {
        for key in values.keys.sorted() where !read.contains(key) {
            throw GraphError.invalidAttribute(node: node, attribute: key, value: values[key]?.description ?? "",
                                              reason: "not an attribute of this op")
        }
    }
}
