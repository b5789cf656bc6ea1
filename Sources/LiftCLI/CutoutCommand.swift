import Lift

/// What a `lift` command line (other than `convert`/`info`) asks for.
public enum CutoutCommand: Sendable, Equatable {
    /// Print the help text.
    case help
    /// Print the version.
    case version
    /// Cut out subjects with these options.
    case run(CutoutOptions)

    /// The options the cut-out action accepts, in the order `--help` lists them.
    public static let optionSpecs: [OptionSpec] = [
        OptionSpec("output", short: "o", value: "PATH", help: "output file (one input), directory, or '-' for standard output"),
        OptionSpec("recursive", short: "r", help: "descend into sub-directories of directory inputs"),
        OptionSpec("force", short: "f", help: "overwrite existing outputs (inputs are never overwritten)"),
        OptionSpec("skip-existing", help: "skip inputs whose outputs all exist, redo the others (resume a batch)"),
        OptionSpec("model", short: "m", value: "NAME", help: "subject (default) | person | person-landscape | u2netp | a rembg model (NAME.onnx in $U2NET_HOME, ~/.u2net) | FILE.onnx | FILE.safetensors"),
        OptionSpec("quality", value: "LEVEL", help: "fast | balanced | accurate: model passes, edge refinement (default balanced)"),
        OptionSpec("background", short: "b", value: "BG", help: "transparent | white | black | #RRGGBB[AA] | blur[:RADIUS] | dim[:LEVEL] (default transparent)"),
        OptionSpec("crop", help: "crop to the kept subjects"),
        OptionSpec("margin", value: "N|N%", help: "margin around the crop, in pixels or percent of its longer side"),
        OptionSpec("square", help: "make the crop a square centred on the subjects"),
        OptionSpec("max-size", value: "N", help: "scale the result down so its longer side is at most N pixels"),
        OptionSpec("instances", value: "WHICH", help: "all | largest | 1,3 (subjects numbered by decreasing area; default all)"),
        OptionSpec("instances-by", value: "HOW", help: "components | model: subjects are the mask's connected components (default), or the model's instance heads split touching ones (the subject model has them; a conservative split that keeps single objects whole)"),
        OptionSpec("at", value: "X,Y", help: "keep only the subject under pixel X,Y (or one within 1 % of the longer side)"),
        OptionSpec("each", help: "write each kept subject to its own file: <name>.N.cutout.png (N as in --instances)"),
        OptionSpec("mask", value: "PATH", help: "also write the grey mask (file for one input, else directory)"),
        OptionSpec("labels", value: "PATH", help: "also write the instance label map (0 = background, 1.. = subjects)"),
        OptionSpec("json", value: "PATH", help: "write a JSON report (sizes, instances, timings) to PATH or '-'"),
        OptionSpec("json-lines", help: "write one JSON object per image to standard output as it finishes"),
        OptionSpec("files-from", value: "FILE", help: "also take the inputs listed in FILE ('-': standard input), one path per line"),
        OptionSpec("null", short: "0", help: "paths in the --files-from list end with NUL bytes, not line ends"),
        OptionSpec("shard", value: "K/N", help: "process only part K of N (1 <= K <= N) of the inputs, by a stable hash of each path"),
        OptionSpec("png-level", value: "N|fast", help: "cut-out compression: zlib level 0 (stored) ... 9 (smallest), or fast (Lift's own: ~9x faster than 4, ~3 % more bytes); default 4"),
        OptionSpec("threshold", value: "T", help: "probability from which a pixel is subject, 0...1 (default 0.5)"),
        OptionSpec("no-refine", help: "skip edge refinement"),
        OptionSpec("decontaminate", value: "on|off", help: "estimate the subject's own colour in partly transparent edge pixels (default on); opaque pixels always keep the photo's colour"),
        OptionSpec("threads", short: "j", value: "N", help: "worker threads (default: all cores)"),
    ] + LimitOptions.specs + [
        OptionSpec("quiet", short: "q", help: "print only errors"),
        OptionSpec("help", short: "h", help: "show this help"),
        OptionSpec("version", short: "V", help: "show the version"),
    ]

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
        if let name = try parsed.value("model") {
            guard !name.isEmpty else {
                throw .invalidValue(option: "--model", value: name, expected: choices(ModelName.allCases.map(\.rawValue)) + ", a rembg model name or a model file")
            }
            options.model = ModelName(argument: name)
        }
        if let level = try parsed.value("quality") {
            guard let quality = Quality(rawValue: level) else {
                throw .invalidValue(option: "--quality", value: level, expected: choices(Quality.allCases.map(\.rawValue)))
            }
            options.quality = quality
        }
        if let text = try parsed.value("background") { options.background = try parseBackground(text) }
        options.crop = try parseCrop(parsed)
        if let text = try parsed.value("max-size") { options.maxSize = try parseCount(text, option: "--max-size") }
        if let text = try parsed.value("instances") { options.instances = try parseInstances(text) }
        if let text = try parsed.value("instances-by") {
            guard let source = InstanceSource(rawValue: text) else {
                throw .invalidValue(option: "--instances-by", value: text, expected: choices(InstanceSource.allCases.map(\.rawValue)))
            }
            options.instancesBy = source
        }
        if let text = try parsed.value("at") {
            if parsed.has("instances") {
                throw .conflictingOptions("--at", "--instances", reason: "both choose which subjects to keep")
            }
            options.point = try parsePoint(text)
        }
        options.eachSubject = parsed.flag("each")
        options.maskOutput = try parsed.value("mask")
        options.labelsOutput = try parsed.value("labels")
        for (option, value) in [("--mask", options.maskOutput), ("--labels", options.labelsOutput)] where value == "-" {
            throw .invalidValue(option: option, value: "-", expected: "a file or directory path (only the cut-out or the JSON report can go to standard output)")
        }
        options.jsonReport = try parsed.value("json").map(OutputTarget.init(argument:))
        if let text = try parsed.value("png-level") {
            guard let compression = PNGCompression(argument: text) else {
                throw .invalidValue(option: "--png-level", value: text, expected: "a whole number from 0 to 9, or fast")
            }
            options.pngLevel = compression
        }
        if options.output == .standardOutput, options.jsonReport == .standardOutput {
            throw .conflictingOptions("--output -", "--json -", reason: "only one of them can use standard output")
        }
        if options.jsonLines, options.output == .standardOutput || options.jsonReport == .standardOutput {
            throw .conflictingOptions("--json-lines", options.output == .standardOutput ? "--output -" : "--json -",
                                      reason: "only one of them can use standard output")
        }
        if let text = try parsed.value("threshold") {
            guard let value = Float(text), value >= 0, value <= 1 else {
                throw .invalidValue(option: "--threshold", value: text, expected: "a number from 0 to 1")
            }
            options.threshold = value
        }
        options.noRefine = parsed.flag("no-refine")
        if let text = try parsed.value("decontaminate") {
            switch text.lowercased() {
            case "on": options.decontaminate = true
            case "off": options.decontaminate = false
            default: throw .invalidValue(option: "--decontaminate", value: text, expected: "on or off")
            }
        }
        if let text = try parsed.value("threads") { options.threads = try parseCount(text, option: "--threads") }
        options.quiet = parsed.flag("quiet")
        options.limits = try LimitOptions.limits(from: parsed)
        try checkInputs(options)
        return .run(options)
    }

    private static func choices(_ names: [String]) -> String { names.joined(separator: ", ") }

    /// A positive integer.
    private static func parseCount(_ text: String, option: String) throws(UsageError) -> Int {
        guard let value = Int(text), value > 0 else { throw .invalidValue(option: option, value: text, expected: "a positive whole number") }
        return value
    }

    /// `transparent`, a colour (`white`, `black`, `#RRGGBB`, `#RRGGBBAA`), `blur[:RADIUS]` or `dim[:LEVEL]`.
    static func parseBackground(_ text: String) throws(UsageError) -> Background {
        do {
            return try Background(parsing: text)
        } catch {
            let kind = text.lowercased().prefix { $0 != ":" }
            let expected = switch kind {
            case "blur", "blurred": "blur, or blur:RADIUS with RADIUS a whole number of pixels from 1 to 10000"
            case "dim", "dimmed": "dim, or dim:LEVEL with LEVEL from 0 (black) to 1 (the photo unchanged)"
            default: "transparent, white, black, #RRGGBB, #RRGGBBAA, blur[:RADIUS] or dim[:LEVEL]"
            }
            throw .invalidValue(option: "--background", value: text, expected: expected)
        }
    }

    /// `--crop` with its `--margin` and `--square` companions.
    private static func parseCrop(_ parsed: ParsedArguments) throws(UsageError) -> CropOption? {
        guard parsed.flag("crop") else {
            for companion in ["margin", "square"] where parsed.has(companion) {
                throw .requiresOption("--\(companion)", requires: "--crop")
            }
            return nil
        }
        var crop = CropOption()
        crop.square = parsed.flag("square")
        if let text = try parsed.value("margin") { crop.margin = try parseMargin(text) }
        return crop
    }

    /// `N` pixels or `N%`.
    static func parseMargin(_ text: String) throws(UsageError) -> Margin {
        let expected = "a number of pixels (24) or a percentage (10%)"
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast()), percent >= 0, percent.isFinite else {
                throw .invalidValue(option: "--margin", value: text, expected: expected)
            }
            return .percent(percent)
        }
        guard let pixels = Int(text), pixels >= 0 else { throw .invalidValue(option: "--margin", value: text, expected: expected) }
        return .pixels(pixels)
    }

    /// `all`, `largest`, or a comma-separated list of 1-based subject numbers.
    static func parseInstances(_ text: String) throws(UsageError) -> InstanceSelection {
        switch text.lowercased() {
        case "all": return .all
        case "largest": return .largest
        default: break
        }
        var numbers: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let number = Int(part.trimmingSpaces), number >= 1 else {
                throw .invalidValue(option: "--instances", value: text, expected: "all, largest, or subject numbers from 1 such as 1,3")
            }
            if !numbers.contains(number) { numbers.append(number) }
        }
        return .numbers(numbers)
    }

    /// `X,Y` in pixels (fractions allowed), both non-negative.
    static func parsePoint(_ text: String) throws(UsageError) -> PixelPoint {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0].trimmingSpaces), let y = Double(parts[1].trimmingSpaces),
              x >= 0, y >= 0, x.isFinite, y.isFinite else {
            throw .invalidValue(option: "--at", value: text, expected: "a pixel position X,Y such as 120,80")
        }
        return PixelPoint(x: x, y: y)
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

extension Substring {
    /// The text without leading and trailing spaces.
    var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
