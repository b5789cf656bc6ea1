/// Text from outside (file names, error sentences that quote them) made safe to print on a terminal
/// or into a log: every control character is written as an escape, as the JSON report writes it, so
/// a name can neither move the cursor, recolour the terminal or set its title, nor start a line of
/// its own that reads like Lift's.
public enum TerminalText {
    /// `text` with C0 controls (newline, tab and carriage return included), DEL, C1 controls
    /// (U+0080…U+009F, which some terminals read as escape sequences) and the bidirectional overrides
    /// and isolates (U+202A…U+202E, U+2066…U+2069, which reorder what is shown) written as `\n`, `\t`,
    /// `\r` or `\u001b` (four hexadecimal digits; `\u{…}` beyond U+FFFF never occurs). Everything else,
    /// backslashes and U+FFFD included, is kept.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where needsEscape(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `scalar` is written as an escape.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00 ... 0x1F, 0x7F ... 0x9F, 0x202A ... 0x202E, 0x2066 ... 0x2069: true
        default: false
        }
    }
}
