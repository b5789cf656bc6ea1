import Foundation
import Lift
import LiftPipeline

/// `lift info [--] FILE` (`-` reads standard input): prints the format, size, colour type, bit depth, interlace and metadata chunks of an
/// image file, one `key: value` line each; for an `.onnx` model file, its IR version, operator sets,
/// inputs, outputs, operators and parameter count. PNG files are checked chunk by chunk without decoding pixels;
/// JPEG files are decoded (to check them) and described by their frame, scans and metadata.
/// Returns 0 on success, 1 when the file cannot be read or is invalid (or the lines cannot be written), 2 for a usage error.
public enum InfoCommand: Subcommand {
    public static let name = "info"

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        let parsed: ParsedArguments
        do throws(UsageError) {
            parsed = try ArgumentParser(options: options).parse(arguments)
        } catch {
            return environment.usageFailure(name, error.description)
        }
        if parsed.flag("help") { return environment.printHelp(help) }
        guard parsed.positionals.count == 1, let path = parsed.positionals.first else { return environment.usageFailure(name, "expected one FILE") }
        do {
            let bytes = try readInput(path)
            let lines: [String]
            switch ImageFormat.sniff(bytes) {
            case .png: lines = try pngLines(bytes)
            case .jpeg: lines = try jpegLines(bytes)
            case .gif: lines = try gifLines(bytes)
            case .webp: lines = try webpLines(bytes)
            case nil where path.lowercased().hasSuffix(".onnx"): lines = try onnxLines(bytes)
            case nil where path.lowercased().hasSuffix(".safetensors"): lines = try safetensorsLines(bytes)
            case nil: throw ImageIOError.unknownFormat(leadingBytes: Array(bytes.prefix(8)))
            }
            try environment.writeStandardOutput(Array((lines.joined(separator: "\n") + "\n").utf8))
            return 0
        } catch let error as StandardStream.WriteError {
            return environment.failure(name, error)
        } catch {
            return environment.failure(name, error, path: path)
        }
    }

    /// `info`'s options.
    static let options = [OptionSpec("help", short: "h", help: "show this help")]

    /// `lift info --help`.
    static let help = HelpText.subcommand(
        usage: "lift info [--] FILE",
        summary: ["Prints a PNG's or JPEG's format, size, colour type, bit depth, interlace or scans, orientation and",
                  "metadata, one 'key: value' line each, checking the file on the way. FILE '-' is standard input.",
                  "For a model file named .onnx: IR version, operator sets, inputs, outputs, operators, parameters;",
                  "named .safetensors (a Lift model): where it came from, its input, graph, tensors and parameters."],
        options: options)
}
