import Lift
import LiftPipeline

/// `lift i [rembg flags] [INPUT [OUTPUT]]`: rembg's `i` verb, one photo with rembg's flags (`-m`, `-a`,
/// `-af`, `-ab`, `-ae`, `-om`, `-ppm`, `-bgc`, `-x`), read from INPUT or standard input and written
/// to OUTPUT or standard output, replacing OUTPUT as rembg does. It runs the cut-out action's
/// batch of one (`CutoutAction.execute`), so it reads, refuses and writes exactly as `lift` does.
public enum RembgFileCommand: Subcommand {
    public static let name = "i"

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        var options: CutoutOptions
        do throws(UsageError) {
            let parsed = try RembgArguments().parse(arguments)
            if parsed.flag("help") { return environment.printHelp(help) }
            guard parsed.positionals.count <= 2 else {
                throw .invalidOutput("expected at most INPUT and OUTPUT, got \(parsed.positionals.count) names")
            }
            options = CutoutOptions(inputs: [parsed.positionals.first ?? "-"])
            options.output = OutputTarget(argument: parsed.positionals.count == 2 ? parsed.positionals[1] : "-")
            options.force = true
            options.quiet = true
            options.request = try CutoutRequest(parsing: parsed, spelled: spelled)
            try CutoutCommand.chooseFormats(&options, formatGiven: false, spelled: spelled, backgroundExample: "-bgc 255 255 255 255")
        } catch {
            return environment.usageFailure(name, error.description)
        }
        return CutoutAction.execute(options, environment: environment, hint: "Run 'lift i --help' for usage.")
    }

    /// How `lift i` names an option in messages: rembg's flag.
    static func spelled(_ option: CutoutOption) -> String { option.rembg?.flag ?? "--" + option.key }

    /// `lift i --help`.
    static var help: String {
        RembgArguments().help(usage: "lift i [options] [INPUT [OUTPUT]]",
                              summary: ["rembg's 'i' with rembg's flags: one photo (PNG, JPEG, WebP, GIF) from INPUT or standard input to",
                                        "OUTPUT or standard output (replaced if it exists; .png, .webp or .jpg). Lift's own options: 'lift --help'."],
                              exitStatus: "0 done   1 the input could not be read or decoded, or the output not written   2 usage error")
    }
}
