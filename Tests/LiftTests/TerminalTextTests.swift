import LiftCLI
import Testing

/// `TerminalText.escaped` and the log line that uses it: names print as one line of plain text.
@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("photo.jpg", "photo.jpg"), ("é ü \u{FFFD}\\x", "é ü \u{FFFD}\\x"), ("a\nb", "a\\nb"), ("\t\r", "\\t\\r"),
        ("\u{1B}[31m", "\\u001b[31m"), ("\u{07}\u{7F}\u{9B}", "\\u0007\\u007f\\u009b"), ("\u{202E}gpj.exe", "\\u202egpj.exe"),
        ("\u{0}", "\\u0000"),
    ])
    func escapesControlCharacters(text: String, expected: String) {
        #expect(TerminalText.escaped(text) == expected)
    }

    @Test func logLinesEscapeNamesAndErrors() {
        var failed = ImageReport(input: "x\n\u{1B}]0;t\u{07}.png", status: .failed)
        failed.error = "cannot read y\u{1B}[2J: No such file"
        #expect(failed.logLine == "x\\n\\u001b]0;t\\u0007.png: cannot read y\\u001b[2J: No such file")
        var written = ImageReport(input: "a.png", status: .ok)
        written.output = "b\r.png"
        #expect(written.logLine == "a.png -> b\\r.png")
    }
}
