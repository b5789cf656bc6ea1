import Lift

extension CutoutOption {
    /// Every option a cut-out takes on every surface, in the order help lists them: Lift's own (some
    /// also spelled as rembg spells them), then those only rembg has. The command line's batch
    /// options (`-o`, `-r`, `--json`, …) are the CLI's own (`CutoutCommand`).
    public static let table: [CutoutOption] = liftOptions + rembgOptions

    /// The options Lift has, with rembg's spelling where rembg has the same option.
    private static let liftOptions: [CutoutOption] = [
        CutoutOption("model", short: "m", rembg: RembgSpelling(field: "model", flag: "-m", long: "--model", words: 1), value: "NAME",
                     help: "subject (default) | person | person-landscape | u2netp | a rembg model (NAME.onnx in $U2NET_HOME, ~/.u2net) | FILE.onnx | FILE.safetensors") { value, request, spelled throws(UsageError) in
            let name = value ?? ""
            guard !name.isEmpty else {
                throw .invalidValue(option: spelled, value: name, expected: choices(ModelName.allCases.map(\.rawValue)) + ", a rembg model name or a model file")
            }
            request.model = ModelName(argument: name)
        },
        CutoutOption("quality", value: "LEVEL", help: "fast | balanced | accurate: model passes, edge refinement (default balanced)") { value, request, spelled throws(UsageError) in
            guard let quality = Quality(rawValue: value ?? "") else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: choices(Quality.allCases.map(\.rawValue)))
            }
            request.quality = quality
        },
        CutoutOption("background", short: "b", value: "BG",
                     help: "transparent | a CSS basic colour name (white, black, red, navy, …) | #RRGGBB[AA] | blur[:RADIUS] | dim[:LEVEL] (default transparent)") { value, request, spelled throws(UsageError) in
            request.background = try parseBackground(value ?? "", option: spelled)
        },
        CutoutOption("crop", help: "crop to the kept subjects") { _, request, _ in
            request.crop = request.crop ?? CropOption()
        },
        CutoutOption("margin", value: "N|N%", help: "margin around the crop, in pixels or percent of its longer side") { value, request, spelled throws(UsageError) in
            request.crop?.margin = try parseMargin(value ?? "", option: spelled)
        },
        CutoutOption("square", help: "make the crop a square centred on the subjects") { _, request, _ in
            request.crop?.square = true
        },
        CutoutOption("max-size", value: "N", help: "scale the result down so its longer side is at most N pixels") { value, request, spelled throws(UsageError) in
            request.maxSize = try parseCount(value ?? "", option: spelled)
        },
        CutoutOption("instances", value: "WHICH", help: "all | largest | 1,3 (subjects numbered by decreasing area; default all)") { value, request, spelled throws(UsageError) in
            request.instances = try parseInstances(value ?? "", option: spelled)
        },
        CutoutOption("instances-by", value: "HOW",
                     help: "components | model: subjects are the mask's connected components (default), or the model's instance heads split touching ones (the subject model has them; a conservative split that keeps single objects whole)") { value, request, spelled throws(UsageError) in
            guard let source = InstanceSource(rawValue: value ?? "") else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: choices(InstanceSource.allCases.map(\.rawValue)))
            }
            request.instancesBy = source
        },
        CutoutOption("at", value: "X,Y", help: "keep only the subject under pixel X,Y (or one within 1 % of the longer side)") { value, request, spelled throws(UsageError) in
            request.point = try parsePoint(value ?? "", option: spelled)
        },
        CutoutOption("png-level", value: "N|fast",
                     help: "cut-out compression: zlib level 0 (stored) ... 9 (smallest), or fast (Lift's own: ~9x faster than 4, ~3 % more bytes); default 4") { value, request, spelled throws(UsageError) in
            guard let compression = PNGCompression(argument: value ?? "") else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: "a whole number from 0 to 9, or fast")
            }
            request.outputs.pngCompression = compression
        },
        CutoutOption("only-mask", rembg: RembgSpelling(field: "om", flag: "-om", long: "--only-mask", words: 0),
                     help: "write the grey mask (0 background ... 255 subject) instead of the cut-out") { _, request, _ in
            request.outputs.image = .mask
        },
        CutoutOption("format", value: "FORMAT",
                     help: "png | webp | jpeg: the image's format (default: the output's extension, else png); WebP is lossless, JPEG needs a background") { value, request, spelled throws(UsageError) in
            guard let format = OutputFormat(name: value ?? "") else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: OutputFormat.names)
            }
            request.outputs.format = format
        },
        CutoutOption("output-quality", value: "N",
                     help: "JPEG quality 1...100 as libjpeg's (default 90: JPEG's error gathers at the subject's hard edge, 2 dB better there than 75)") { value, request, spelled throws(UsageError) in
            guard let quality = value.flatMap({ Int($0) }), (1...100).contains(quality) else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: "a whole number from 1 to 100")
            }
            request.outputs.jpegQuality = quality
        },
        CutoutOption("threshold", value: "T", help: "probability from which a pixel is subject, 0...1 (default 0.5)") { value, request, spelled throws(UsageError) in
            guard let threshold = value.flatMap(Float.init), threshold >= 0, threshold <= 1 else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: "a number from 0 to 1")
            }
            request.threshold = threshold
        },
        CutoutOption("no-refine", help: "skip edge refinement") { _, request, _ in
            request.refine = false
        },
        CutoutOption("decontaminate", value: "on|off",
                     help: "estimate the subject's own colour in partly transparent edge pixels (default on); opaque pixels always keep the photo's colour") { value, request, spelled throws(UsageError) in
            switch value?.lowercased() {
            case "on": request.decontaminate = true
            case "off": request.decontaminate = false
            default: throw .invalidValue(option: spelled, value: value ?? "", expected: "on or off")
            }
        },
    ]

    /// The option whose key (Lift's name, else rembg's field) is `key`.
    public static func named(_ key: String) -> CutoutOption? { table.first { $0.key == key } }

    package static func choices(_ names: [String]) -> String { names.joined(separator: ", ") }

    /// A positive integer.
    package static func parseCount(_ text: String, option: String) throws(UsageError) -> Int {
        guard let value = Int(text), value > 0 else { throw .invalidValue(option: option, value: text, expected: "a positive whole number") }
        return value
    }

    /// `transparent`, a colour (`white`, `black`, `#RRGGBB`, `#RRGGBBAA`), `blur[:RADIUS]` or `dim[:LEVEL]`.
    static func parseBackground(_ text: String, option: String) throws(UsageError) -> Background {
        if let color = cssBasicColors[text.lowercased()] { return .color(color) }
        do {
            return try Background(parsing: text)
        } catch {
            let kind = text.lowercased().prefix { $0 != ":" }
            let expected = switch kind {
            case "blur", "blurred": "blur, or blur:RADIUS with RADIUS a whole number of pixels from 1 to 10000"
            case "dim", "dimmed": "dim, or dim:LEVEL with LEVEL from 0 (black) to 1 (the photo unchanged)"
            default: "transparent, a colour name (\(cssBasicColorNames)), #RRGGBB, #RRGGBBAA, blur[:RADIUS] or dim[:LEVEL]"
            }
            throw .invalidValue(option: option, value: text, expected: expected)
        }
    }

    /// CSS's 16 basic colour keywords (CSS Color Level 4, §6.1), opaque.
    static let cssBasicColors: [String: RGBAColor] = [
        "black": RGBAColor(r: 0, g: 0, b: 0), "silver": RGBAColor(r: 192, g: 192, b: 192), "gray": RGBAColor(r: 128, g: 128, b: 128),
        "white": RGBAColor(r: 255, g: 255, b: 255), "maroon": RGBAColor(r: 128, g: 0, b: 0), "red": RGBAColor(r: 255, g: 0, b: 0),
        "purple": RGBAColor(r: 128, g: 0, b: 128), "fuchsia": RGBAColor(r: 255, g: 0, b: 255), "green": RGBAColor(r: 0, g: 128, b: 0),
        "lime": RGBAColor(r: 0, g: 255, b: 0), "olive": RGBAColor(r: 128, g: 128, b: 0), "yellow": RGBAColor(r: 255, g: 255, b: 0),
        "navy": RGBAColor(r: 0, g: 0, b: 128), "blue": RGBAColor(r: 0, g: 0, b: 255), "teal": RGBAColor(r: 0, g: 128, b: 128),
        "aqua": RGBAColor(r: 0, g: 255, b: 255),
    ]

    /// The basic colour names in CSS's order, for messages.
    package static let cssBasicColorNames = "black, silver, gray, white, maroon, red, purple, fuchsia, green, lime, olive, yellow, navy, blue, teal, aqua"

    /// `N` pixels or `N%`.
    static func parseMargin(_ text: String, option: String) throws(UsageError) -> Margin {
        let expected = "a number of pixels (24) or a percentage (10%)"
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast()), percent >= 0, percent.isFinite else {
                throw .invalidValue(option: option, value: text, expected: expected)
            }
            return .percent(percent)
        }
        guard let pixels = Int(text), pixels >= 0 else { throw .invalidValue(option: option, value: text, expected: expected) }
        return .pixels(pixels)
    }

    /// `all`, `largest`, or a comma-separated list of 1-based subject numbers.
    static func parseInstances(_ text: String, option: String) throws(UsageError) -> InstanceSelection {
        switch text.lowercased() {
        case "all": return .all
        case "largest": return .largest
        default: break
        }
        var numbers: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let number = Int(part.trimmingSpaces), number >= 1 else {
                throw .invalidValue(option: option, value: text, expected: "all, largest, or subject numbers from 1 such as 1,3")
            }
            if !numbers.contains(number) { numbers.append(number) }
        }
        return .numbers(numbers)
    }

    /// `X,Y` in pixels (fractions allowed), both non-negative.
    static func parsePoint(_ text: String, option: String) throws(UsageError) -> PixelPoint {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0].trimmingSpaces), let y = Double(parts[1].trimmingSpaces),
              x >= 0, y >= 0, x.isFinite, y.isFinite else {
            throw .invalidValue(option: option, value: text, expected: "a pixel position X,Y such as 120,80")
        }
        return PixelPoint(x: x, y: y)
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
