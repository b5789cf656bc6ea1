import LiftPipeline

/// An `Accept` header's media ranges and their weights (RFC 9110 §12.5.1): `image/webp`,
/// `image/*;q=0.8`, `*/*;q=0.1`. A type's weight is that of the most specific range matching it.
package struct AcceptHeader: Sendable, Equatable {
    /// One media range: type and subtype lowercased (`*` for any), its weight 0...1.
    package struct Range: Sendable, Equatable {
        package var type: Substring
        package var subtype: Substring
        package var weight: Double
    }

    /// The ranges in the order given; a malformed one (no `/`) is left out.
    package let ranges: [Range]

    /// The ranges of the header's text (several `Accept` fields joined with commas).
    package init(_ text: String) {
        var ranges: [Range] = []
        for element in text.split(separator: ",") {
            let parameters = element.split(separator: ";")
            guard let first = parameters.first else { continue }
            let parts = first.trimmingASCIISpaces.lowercased().split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { continue }
            var weight = 1.0
            for parameter in parameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingASCIISpaces.lowercased() }
                if pair.count == 2, pair[0] == "q", let value = Double(pair[1]), value >= 0, value <= 1 { weight = value }
            }
            ranges.append(Range(type: parts[0], subtype: parts[1], weight: weight))
        }
        self.ranges = ranges
    }

    /// The weight of `mediaType` (`image/png`): that of the most specific matching range
    /// (`image/png` over `image/*` over `*/*`); 0 when none matches.
    package func weight(of mediaType: String) -> Double {
        let parts = mediaType.split(separator: "/")
        guard parts.count == 2 else { return 0 }
        var best: (specificity: Int, weight: Double) = (-1, 0)
        for range in ranges {
            let specificity: Int
            if range.type == parts[0], range.subtype == parts[1] { specificity = 2 }
            else if range.type == parts[0], range.subtype == "*" { specificity = 1 }
            else if range.type == "*", range.subtype == "*" { specificity = 0 }
            else { continue }
            if specificity > best.specificity { best = (specificity, range.weight) }
        }
        return best.weight
    }

    /// The acceptable format of `formats` with the highest weight, the first of `formats` among equals
    /// (so `*/*` gets the first); `nil` when every one weighs 0.
    package func best(of formats: [OutputFormat]) -> OutputFormat? {
        var chosen: (format: OutputFormat, weight: Double)?
        for format in formats {
            let weight = weight(of: format.mediaType)
            if weight > 0, weight > (chosen?.weight ?? 0) { chosen = (format, weight) }
        }
        return chosen?.format
    }
}
