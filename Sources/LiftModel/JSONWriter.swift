extension JSONValue {
    /// The value as compact JSON text: object keys sorted, no spaces, so the same value always gives
    /// the same bytes (what `Tools/` writers do with Python's `json.dumps(sort_keys=True)`).
    /// Doubles must be finite (JSON has no infinities or NaN).
    var jsonText: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .double(let number):
            precondition(number.isFinite, "JSON has no \(number)")
            text += number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .string(let string): Self.writeString(string, to: &text)
        case .array(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += "," }
                item.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.writeString(key, to: &text)
                text += ":"
                members[key]?.write(to: &text)
            }
            text += "}"
        }
    }

    /// `string` as a JSON string literal: quotes, backslashes and control characters escaped.
    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
