/// One option of a cut-out, as every surface spells it: Lift's name (`--NAME` on the command line,
/// the field `NAME` over HTTP), rembg's spelling where rembg has the option (its HTTP field and
/// its `i`/`p`/`b` flag), the value it takes, its help, and how it changes a `CutoutRequest`.
/// `CutoutOption.table` lists them all; the command line, rembg's verbs and the HTTP API parse
/// through it, so an option means and is refused the same everywhere.
public struct CutoutOption: Sendable {
    /// Lift's name without dashes (`"background"`); `nil` for an option only rembg has.
    public let name: String?
    /// Lift's one-letter command-line name (`"b"` for `-b`), if any.
    public let short: Character?
    /// rembg's spelling, where rembg has this option with this meaning.
    public let rembg: RembgSpelling?
    /// The placeholder shown in help for the value (`"BG"`); `nil` for a switch (`--crop`, `crop=true`).
    public let valueName: String?
    /// One line of help text (also the OpenAPI description).
    public let help: String
    /// Applies a value (`nil` for a switch that is on) to a request; throws `UsageError.invalidValue`
    /// naming the option as `spelled`.
    let apply: @Sendable (_ value: String?, _ request: inout CutoutRequest, _ spelled: String) throws(UsageError) -> Void

    /// An option of Lift's, optionally also rembg's (with the same value syntax).
    init(_ name: String?, short: Character? = nil, rembg: RembgSpelling? = nil, value valueName: String? = nil, help: String,
         apply: @escaping @Sendable (_ value: String?, _ request: inout CutoutRequest, _ spelled: String) throws(UsageError) -> Void) {
        precondition(name != nil || rembg != nil, "an option has Lift's name, rembg's, or both")
        self.name = name
        self.short = short
        self.rembg = rembg
        self.valueName = valueName
        self.help = help
        self.apply = apply
    }

    /// Whether the option takes a value.
    public var takesValue: Bool { valueName != nil }

    /// The key parsed values are stored under: Lift's name, else rembg's field.
    public var key: String {
        guard let name = name ?? rembg?.field else { preconditionFailure("an option without a name") }
        return name
    }
}

/// How rembg spells an option: its HTTP field (`bgc`), its short flag in `rembg i/p/b` (`-bgc`) and
/// the long one (`--bgcolor`), and how many command-line words its value takes (`-bgc R G B A`: 4).
public struct RembgSpelling: Sendable, Equatable {
    /// The HTTP query or form field (`om`).
    public let field: String
    /// The flag of rembg's command-line verbs, with its dash (`-om`).
    public let flag: String
    /// The long flag, with its dashes (`--only-mask`).
    public let long: String
    /// Command-line words the value takes: 0 for a switch, 1, or 4 (`-bgc R G B A`, joined with commas).
    public let words: Int

    /// rembg's spelling of an option.
    public init(field: String, flag: String, long: String, words: Int) {
        self.field = field
        self.flag = flag
        self.long = long
        self.words = words
    }
}
