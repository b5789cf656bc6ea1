import Foundation
import Lift
import LiftPipeline

/// `lift convert [options] INPUT OUTPUT.png`: decodes any image Lift can read and writes it as PNG
/// atomically. PNG inputs keep their 16-bit samples and metadata chunks; JPEG inputs keep their ICC
/// profile (as iCCP, when it is an RGB or grey profile that fits the output). INPUT `-` is standard
/// input, OUTPUT `-` standard output. The input is never overwritten; an existing output only with
/// `--force` (without it, of two runs racing for one name exactly one writes it, the other fails).
/// Exit status as the cut-out action's: 0 done, 1 reading, decoding or writing failed (an existing
/// output included), 2 usage error; on failure no output file is left behind.
public enum ConvertCommand: Subcommand {
    public static let name = "convert"

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        let parsed: ParsedArguments
        var encoding = PNGEncoder.Options(reduceColorType: true)
        let limits: DecodingLimits
        do throws(UsageError) {
            parsed = try ArgumentParser(options: options).parse(arguments)
            if parsed.flag("help") { return environment.printHelp(help) }
            if parsed.flag("fast") { encoding = .fast }
            if parsed.flag("keep-layout") { encoding.reduceColorType = false }
            if let text = try parsed.value("level") {
                guard let level = Int(text), (0...9).contains(level) else {
                    throw .invalidValue(option: "--level", value: text, expected: "a whole number from 0 to 9")
                }
                encoding.level = level
            }
            limits = try LimitOptions.limits(from: parsed)
        } catch {
            return environment.usageFailure(name, error.description)
        }
        let force = parsed.flag("force")
        guard parsed.positionals.count == 2 else { return environment.usageFailure(name, "expected INPUT and OUTPUT.png") }
        let (input, output) = (parsed.positionals[0], parsed.positionals[1])
        let outputExtension = PathText.fileExtension(of: output)
        if output != "-", !outputExtension.isEmpty, outputExtension != "png" {
            return environment.usageFailure(name, "\(output): convert writes PNG only; name the output .png")
        }
        if input != "-", output != "-", LocalFileSystem().canonicalPath(input) == LocalFileSystem().canonicalPath(output) {
            return environment.usageFailure(name, "\(output) is the input; Lift never overwrites an input")
        }
        if output != "-" {
            environment.reportRemoved(AtomicFile.removeStaleTemporaryFiles(in: PathText.directory(of: output)), command: name)
            // Checked here to fail before decoding; the write itself refuses to replace a file created meanwhile.
            if !force, Directories.exists(output) {  // a dangling symbolic link too
                return outputExists(output, environment)
            }
        }
        do {
            let bytes = try readInput(input)
            let png: [UInt8]
            if ImageFormat.sniff(bytes) == .png {
                let info = try PNGDecoder.readInfo(bytes, limits: limits)
                encoding.metadata = info.metadata
                if info.header.bitDepth == 16 {
                    png = try PNGEncoder.encode(PNGSamples(try PNGDecoder.decode16(bytes, limits: limits).image), options: encoding)
                } else {
                    png = try PNGEncoder.encode(try PNGDecoder.decode(bytes, limits: limits).image, options: encoding)
                }
            } else {
                let photo = try ImageIO.decodePhoto(bytes, limits: limits)
                encoding.metadata = photo.color
                png = try PNGEncoder.encode(photo.image, options: encoding)
            }
            if output == "-" {
                try environment.writeStandardOutput(png)
            } else {
                try AtomicFile.write(png, to: output, overwrite: force)
            }
            return 0
        } catch let error as AtomicFile.WriteError where error.reason == "file exists" {
            return outputExists(output, environment)  // another process wrote it meanwhile
        } catch let error as AtomicFile.WriteError {
            return environment.failure(name, error)
        } catch let error as StandardStream.WriteError {
            return environment.failure(name, error)
        } catch {
            return environment.failure(name, error, path: input)
        }
    }

    /// `convert`'s options, as its `--help` lists them.
    static let options: [OptionSpec] = [
        OptionSpec("force", short: "f", help: "replace OUTPUT if it exists (the input is never replaced)"),
        OptionSpec("level", value: "N", help: "zlib level, 0 (stored) ... 9 (smallest); default 6"),
        OptionSpec("fast", help: "the fast settings made for masks: level 1, run-length matching, Up filter"),
        OptionSpec("keep-layout", help: "keep the decoded RGBA layout instead of the smallest lossless one"),
    ] + LimitOptions.specs + [
        OptionSpec("help", short: "h", help: "show this help"),
    ]

    /// `lift convert --help`.
    static let help = HelpText.subcommand(
        usage: "lift convert [options] [--] INPUT OUTPUT.png",
        summary: ["Decodes a PNG, JPEG, WebP or GIF (any layout Lift reads) and writes it as PNG, atomically: PNG",
                  "inputs keep 16-bit samples and metadata, the others their ICC profile. '-' is standard input or output."],
        options: options)

    /// Reports that `output` exists and is kept; returns exit code 1, as the cut-out action does.
    private static func outputExists(_ output: String, _ environment: CommandEnvironment) -> Int32 {
        environment.writeStandardError("lift convert: \(TerminalText.escaped(output)) exists (use --force to replace it)\n")
        return 1
    }
}
