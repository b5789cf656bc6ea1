import Lift
import LiftPipeline

/// `--max-pixels N` and `--max-memory SIZE`, which the cut-out action and `lift convert` share: the
/// `DecodingLimits` a photo is checked against from its header, before its pixels are allocated.
public enum LimitOptions {
    /// The two options, as `--help` lists them.
    public static let specs: [OptionSpec] = [
        OptionSpec("max-pixels", value: "N", help: "refuse images with more pixels than N (e.g. 50000000 or 50M; default 200M)"),
        OptionSpec("max-memory", value: "SIZE", help: "refuse images whose cut-out needs more memory than SIZE, e.g. 2GB "
                   + "(default: RAM, container or ulimit -v)"),
    ]

    /// The limits `parsed` asks for (the defaults where it names neither option).
    public static func limits(from parsed: ParsedArguments) throws(UsageError) -> DecodingLimits {
        var limits = DecodingLimits.default
        if let text = try parsed.value("max-pixels") {
            let scaled = text.uppercased().hasSuffix("MP") ? String(text.dropLast(1)) : text
            guard let value = MemoryBudget.parseSize(scaled), value > 0, !text.lowercased().hasSuffix("ib") else {
                throw .invalidValue(option: "--max-pixels", value: text, expected: "a positive number of pixels such as 50000000 or 50M")
            }
            limits.maxPixels = value
        }
        if let text = try parsed.value("max-memory") {
            guard let value = MemoryBudget.parseSize(text), value > 0 else {
                throw .invalidValue(option: "--max-memory", value: text, expected: "a size such as 2GB, 512MB or 800KB")
            }
            limits.maxMemoryBytes = value
        }
        return limits
    }
}
