/// Header fields in the order received; names compare case-insensitively (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Equatable {
    /// The fields as received: name as sent, value with surrounding spaces removed.
    public private(set) var fields: [(name: String, value: String)] = []

    /// No fields.
    public init() {}

    /// Adds a field.
    public mutating func append(name: String, value: String) { fields.append((name, value)) }

    /// Every value of the field `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// The field's values joined with ", " (RFC 9110 §5.3), or nil when absent.
    public subscript(_ name: String) -> String? {
        let all = values(name)
        return all.isEmpty ? nil : all.joined(separator: ", ")
    }

    /// The comma-separated elements of every `name` field, lowercased and trimmed
    /// (`Connection: keep-alive, Upgrade` → ["keep-alive", "upgrade"]).
    public func tokens(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",") }.map { $0.trimmingASCIISpaces.lowercased() }.filter { !$0.isEmpty }
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.map { "\($0.name): \($0.value)" } == rhs.fields.map { "\($0.name): \($0.value)" }
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality (header names, tokens).
    func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { Self.lowerASCII($0) == Self.lowerASCII($1) }
    }

    /// The text without leading and trailing spaces and tabs.
    var trimmingASCIISpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    private static func lowerASCII(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }
}
