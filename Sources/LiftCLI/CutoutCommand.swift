import Lift
import LiftPipeline

/// What a `lift` command line (other than `convert`/`info`) asks for.
public enum CutoutCommand: Sendable, Equatable {
    /// Print the help text.
    case help
    /// Print the version.
    case version
    /// Cut out subjects with these options.
    case run(CutoutOptions)

    /// The command line's own options: inputs, outputs, batches, threads, limits, help.
    static let batchSpecs: [OptionSpec] = [
        OptionSpec("output", short: "o", value: "PATH", help: "output file (one input), directory, or '-' for standard output"),
        OptionSpec("recursive", short: "r", help: "descend into sub-directories of directory inputs"),
        OptionSpec("force", short: "f", help: "overwrite existing outputs (inputs are never overwritten)"),
        OptionSpec("skip-existing", help: "skip inputs whose outputs all exist, redo the others (resume a batch)"),
        OptionSpec("each", help: "write each kept subject to its own file: <name>.N.cutout.png (N as in --instances)"),
        OptionSpec("mask", value: "PATH", help: "also write the grey mask (file for one input, else directory)"),
        OptionSpec("labels", value: "PATH", help: "also write the instance label map (0 = background, 1.. = subjects)"),
        OptionSpec("json", value: "PATH", help: "write a JSON report (sizes, instances, timings) to PATH or '-'"),
        OptionSpec("json-lines", help: "write one JSON object per image to standard output as it finishes"),
        OptionSpec("files-from", value: "FILE", help: "also take the inputs listed in FILE ('-': standard input), one path per line"),
        OptionSpec("null", short: "0", help: "paths in the --files-from list end with NUL bytes, not line ends"),
        OptionSpec("shard", value: "K/N", help: "process only part K of N (1 <= K <= N) of the inputs, by a stable hash of each path"),
        OptionSpec("threads", short: "j", value: "N", help: "worker threads (default: all cores)"),
    ] + LimitOptions.specs + [
        OptionSpec("quiet", short: "q", help: "print only errors"),
        OptionSpec("help", short: "h", help: "show this help"),
        OptionSpec("version", short: "V", help: "show the version"),
    ]

    /// Every option the cut-out action accepts: its own and Lift's spelling of `CutoutOption.table`.
    public static let optionSpecs: [OptionSpec] = batchSpecs + CutoutOption.table.compactMap(OptionSpec.init(lift:))

    /// Parses the cut-out action's arguments (without the program name) and checks that they fit
    /// together. File-system checks (existence, overwrites) happen later, per input.
    public static func parse(_ arguments: [String]) throws(UsageError) -> CutoutCommand {
        let parsed = try ArgumentParser(options: optionSpecs).parse(arguments)
        if parsed.flag("help") { return .help }
        if parsed.flag("version") { return .version }
        let inputList = try parsed.value("files-from")
        guard !parsed.positionals.isEmpty || inputList != nil else { throw .missingInput }

        var options = CutoutOptions(inputs: parsed.positionals)
        options.inputList = inputList
        options.inputListNullSeparated = parsed.flag("null")
        if options.inputListNullSeparated, inputList == nil { throw .requiresOption("--null", requires: "--files-from") }
        if let text = try parsed.value("shard") {
            guard let shard = Shard(parsing: text) else {
                throw .invalidValue(option: "--shard", value: text, expected: "K/N with whole numbers 1 <= K <= N, such as 2/8")
            }
            options.shard = shard
        }
        options.jsonLines = parsed.flag("json-lines")
        options.output = try parsed.value("output").map(OutputTarget.init(argument:))
        options.recursive = parsed.flag("recursive")
        options.force = parsed.flag("force")
        options.skipExisting = parsed.flag("skip-existing")
        if options.force && options.skipExisting {
            throw .conflictingOptions("--force", "--skip-existing", reason: "one overwrites existing outputs, the other keeps them")
        }
        options.request = try CutoutRequest(parsing: parsed) { "--\($0.key)" }
        options.eachSubject = parsed.flag("each")
        options.maskOutput = try parsed.value("mask")
        options.labelsOutput = try parsed.value("labels")
        try chooseFormats(&options, formatGiven: parsed.has("format"), spelled: { "--\($0.key)" }, backgroundExample: "-b white")
        for (option, value) in [("--mask", options.maskOutput), ("--labels", options.labelsOutput)] where value == "-" {
            throw .invalidValue(option: option, value: "-", expected: "a file or directory path (only the cut-out or the JSON report can go to standard output)")
        }
        options.jsonReport = try parsed.value("json").map(OutputTarget.init(argument:))
        if options.output == .standardOutput, options.jsonReport == .standardOutput {
            throw .conflictingOptions("--output -", "--json -", reason: "only one of them can use standard output")
        }
        if options.jsonLines, options.output == .standardOutput || options.jsonReport == .standardOutput {
            throw .conflictingOptions("--json-lines", options.output == .standardOutput ? "--output -" : "--json -",
                                      reason: "only one of them can use standard output")
        }
        if let text = try parsed.value("threads") { options.threads = try CutoutOption.parseCount(text, option: "--threads") }
        options.quiet = parsed.flag("quiet")
        options.limits = try LimitOptions.limits(from: parsed)
        try checkInputs(options)
        return .run(options)
    }

    /// The cut-out's format from `-o`'s extension (`cut.webp`), else `--format`, else PNG; the mask's
    /// from `--mask`'s extension, else PNG. A file extension and `--format` that disagree, and a
    /// format the outputs cannot take (a transparent JPEG), are usage errors.
    /// - Parameters: `spelled` and `backgroundExample` as `CutoutRequest.checkFormats` takes them.
    static func chooseFormats(_ options: inout CutoutOptions, formatGiven: Bool, spelled: (CutoutOption) -> String,
                              backgroundExample: String) throws(UsageError) {
        if case .path(let path)? = options.output, let named = OutputFormat(fileExtension: PathText.fileExtension(of: path)) {
            if formatGiven, named != options.request.outputs.format {
                throw .conflictingOptions("--output \(path)", "--format \(options.request.outputs.format.rawValue)",
                                          reason: "the file's extension says \(named.rawValue)")
            }
            options.request.outputs.format = named
        }
        if let path = options.maskOutput, let named = OutputFormat(fileExtension: PathText.fileExtension(of: path)) {
            options.request.outputs.maskFormat = named
        }
        var outputs = options.request
        outputs.outputs.mask = options.maskOutput != nil
        try outputs.checkFormats(spelled: spelled, backgroundExample: backgroundExample)
    }

    /// Checks that can be made on the input list alone.
    private static func checkInputs(_ options: CutoutOptions) throws(UsageError) {
        let stdinCount = options.inputs.filter { $0 == "-" }.count
        if stdinCount + (options.inputList == "-" ? 1 : 0) > 1 { throw .invalidOutput("standard input ('-') can be read only once") }
        if options.shard != nil, stdinCount > 0 {
            throw .conflictingOptions("--shard", "-", reason: "standard input is one stream, which cannot be split into shards")
        }
        if options.output == .standardOutput, options.inputs.count > 1 {
            throw .invalidOutput("'-o -' writes one image to standard output, but \(options.inputs.count) inputs were given")
        }
        if stdinCount == 1, options.inputs.count > 1, options.output == nil {
            throw .invalidOutput("with '-' among several inputs, name an output directory with -o")
        }
        if options.eachSubject, options.output == .standardOutput || (stdinCount == 1 && options.output == nil) {
            throw .invalidOutput("--each writes a file per subject, which standard output cannot take; name a file or directory with -o")
        }
    }
}
