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
    }
}
