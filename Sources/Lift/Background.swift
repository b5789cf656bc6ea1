import LiftMask

extension Background {
    /// Parses the CLI's background notation:
    /// `transparent`; a colour (`white`, `black`, `#RRGGBB`, `#RRGGBBAA`); `blur` or `blur:RADIUS`
    /// (pixels, 1…10000); `dim` or `dim:LEVEL` (brightness 0…1, default 0.35). A `:` needs a value after it.
    /// - Throws: `MaskError.invalidBackground` (or `.invalidColor` for a malformed `#…` colour).
    public init(parsing text: String) throws {
        let lower = text.lowercased()
        let parts = lower.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        switch parts.first ?? "" {
        case "transparent", "none", "alpha":
            guard parts.count == 1 else { throw MaskError.invalidBackground(text) }
            self = .transparent
        case "blur", "blurred":
            if parts.count == 1 { self = .blurred(radius: nil); return }
            guard let radius = Int(parts[1]), radius >= 1, radius <= 10_000 else {
                throw MaskError.invalidBackground(text)
            }
            self = .blurred(radius: radius)
        case "dim", "dimmed":
            if parts.count == 1 { self = .dimmed(brightness: 0.35); return }
            guard let brightness = Float(parts[1]), brightness >= 0, brightness <= 1 else {
                throw MaskError.invalidBackground(text)
            }
            self = .dimmed(brightness: brightness)
        default:
            if text.hasPrefix("#") {
                self = .color(try RGBAColor(parsing: text))
            } else if let color = try? RGBAColor(parsing: text) {
                self = .color(color)
            } else {
                throw MaskError.invalidBackground(text)
            }
        }
    }
}
