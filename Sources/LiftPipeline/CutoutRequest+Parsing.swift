import Lift

extension CutoutRequest {
    /// The request `given` asks for: each option of `CutoutOption.table` found in it (stored under the
    /// option's `key`, a switch as a flag) is applied in the table's order, then the checks between
    /// options run (`--margin` and `--square` need `--crop`; `--at` and `--instances` both choose).
    /// Options `given` holds that are not in the table are left to the caller.
    /// - Parameter spelled: how this surface names an option in its messages (`--margin`, `margin`).
    /// - Throws: `UsageError` naming the option as `spelled` says.
    public init(parsing given: ParsedArguments, spelled: (CutoutOption) -> String) throws(UsageError) {
        self.init()
        for option in CutoutOption.table where given.has(option.key) {
            if option.takesValue {
                try option.apply(try given.value(option.key, spelled: spelled(option)), &self, spelled(option))
            } else {
                try option.apply(nil, &self, spelled(option))
            }
        }
        func name(_ key: String) -> String { CutoutOption.named(key).map(spelled) ?? key }
        if crop == nil {
            for companion in ["margin", "square"] where given.has(companion) {
                throw .requiresOption(name(companion), requires: name("crop"))
            }
        }
        if given.has("at"), given.has("instances") {
            throw .conflictingOptions(name("at"), name("instances"), reason: "both choose which subjects to keep")
        }
        if given.has("background"), given.has("bgc") {
            throw .conflictingOptions(name("background"), name("bgc"), reason: "both choose the background")
        }
        if given.has("no-refine"), given.has("a") {
            throw .conflictingOptions(name("no-refine"), name("a"), reason: "one turns edge refinement off, the other on")
        }
    }
}

extension CutoutRequest {
    /// Checks that the formats chosen for the outputs (`outputs.format`, `maskFormat`) fit the
    /// request: a cut-out written as JPEG needs an opaque background (JPEG has no transparency), and
    /// `output-quality` needs a JPEG to apply to (PNG and WebP are lossless).
    /// - Parameters:
    ///   - spelled: how this surface names an option in its messages.
    ///   - backgroundExample: how this surface asks for a white background (`-b white`, `background=white`).
    /// - Throws: `UsageError.invalidOutput` saying what to change.
    public func checkFormats(spelled: (CutoutOption) -> String, backgroundExample: String) throws(UsageError) {
        if outputs.image == .cutout, outputs.format == .jpeg, !background.isOpaque {
            throw .invalidOutput("a JPEG cannot be transparent: choose a background for the cut-out (\(backgroundExample), or any opaque "
                                 + "colour, blur or dim), or write PNG or WebP, which keep the transparency")
        }
        if outputs.jpegQuality != nil, !outputs.writesJPEG {
            let name = CutoutOption.named("output-quality").map(spelled) ?? "output-quality"
            throw .invalidOutput("'\(name)' sets a JPEG's quality, but no JPEG is written (PNG and WebP are lossless)")
        }
    }
}

extension Background {
    /// Whether the background covers every pixel with alpha 255 (a colour with alpha below 255 does
    /// not; the blurred or dimmed photo does when the photo is opaque).
    public var isOpaque: Bool {
        switch self {
        case .transparent: false
        case .color(let color): color.a == 255
        case .blurred, .dimmed: true
        }
    }
}
