import Foundation
import Lift
import LiftPipeline

/// `lift import [options] MODEL.onnx -o NAME.safetensors`: converts an ONNX model (rembg's zoo:
/// U²-Net, ISNet…) into a Lift model file once, so later runs load it in milliseconds
/// (`lift --model NAME.safetensors`). The pre- and post-processing of its rembg preset (input size,
/// normalisation, min-max stretch of the output) is recorded as `lift.input`, chosen by the file's
/// name or by `--preset`. The output is written atomically and never replaces a file without
/// `--force`. Exit 0 done, 1 the file cannot be read, imported or written, 2 usage error.
public enum ImportCommand: Subcommand {
    public static let name = "import"

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        let parsed: ParsedArguments
        var preset: RembgPreset?
        do throws(UsageError) {
            parsed = try ArgumentParser(options: options).parse(arguments)
            if parsed.flag("help") { return environment.printHelp(help) }
            if let presetName = try parsed.value("preset") {
                guard let named = RembgPreset.named(presetName) else {
                    throw .invalidValue(option: "--preset", value: presetName, expected: RembgPreset.all.map(\.name).joined(separator: ", "))
                }
                preset = named
            }
        } catch {
            return environment.usageFailure(name, error.description)
        }
        guard parsed.positionals.count == 1 else { return environment.usageFailure(name, "expected one MODEL.onnx") }
        let input = parsed.positionals[0]
        guard let output = try? parsed.value("output") else { return environment.usageFailure(name, "name the Lift model file with -o NAME.safetensors") }
        guard PathText.fileExtension(of: output) == "safetensors" else {
            return environment.usageFailure(name, "\(output): a Lift model file is named .safetensors")
        }
        let force = parsed.flag("force")
        environment.reportRemoved(AtomicFile.removeStaleTemporaryFiles(in: PathText.directory(of: output)), command: name)
        if !force, Directories.exists(output) {
            environment.writeStandardError("lift import: \(TerminalText.escaped(output)) exists (use --force to replace it)\n")
            return 1
        }
        do {
            let bytes = try ImageIO.readFile(input, maxBytes: WeightLimits.default.maxFileBytes)
            let conversion = try ONNXConversion(model: try ONNXModel(bytes: bytes),
                                                preset: preset ?? RembgPreset.forModel(PathText.stem(of: input)),
                                                output: try parsed.value("output-name"))
            let precision: SafeTensorsWriter.Precision = parsed.flag("f16") ? .f16 : .f32
            let provenance = "Imported by lift \(LiftVersion.string) (lift import\(parsed.flag("f16") ? " --f16" : "")) from \(PathText.name(of: input)), "
                + "sha256 \(SHA256.hex(bytes)); preset \(conversion.preset.name)"
            let file = try conversion.fileBytes(precision: precision, provenance: provenance)
            // Loading it back checks the graph, and its output, as every later run will.
            try conversion.checkMaskOutput(of: try Model(bytes: file))
            try AtomicFile.write(file, to: output, overwrite: force)
            let presetNote = conversion.presetRecognised ? "" : " (the default: the file's name is not one of rembg's; choose with --preset)"
            environment.writeStandardError("lift import: wrote \(TerminalText.escaped(output)): \(conversion.imported.nodeCount) nodes, "
                + "\(conversion.imported.foldedBatchNormalizations) BatchNormalizations folded, \(conversion.parameterCount) parameters in \(precision.rawValue), "
                + "\(file.count) bytes; input \(conversion.spec.width)×\(conversion.spec.height), output \(conversion.imported.outputName), "
                + "preset \(conversion.preset.name)\(presetNote)\n")
            return 0
        } catch let error as AtomicFile.WriteError where error.reason == "file exists" {
            environment.writeStandardError("lift import: \(TerminalText.escaped(output)) exists (use --force to replace it)\n")
            return 1
        } catch let error as AtomicFile.WriteError {
            return environment.failure(name, error)
        } catch {
            return environment.failure(name, error, path: input)
        }
    }

    /// `import`'s options, as its `--help` lists them.
    static let options: [OptionSpec] = [
        OptionSpec("output", short: "o", value: "PATH", help: "the Lift model file to write (NAME.safetensors)"),
        OptionSpec("f16", help: "store the weights in half precision (half the size; outputs differ by ~1e-3)"),
        OptionSpec("preset", value: "NAME", help: "pre- and post-processing: " + RembgPreset.all.map(\.name).joined(separator: " | ")
            + " (default: rembg's for the file's name, else u2net)"),
        OptionSpec("output-name", value: "NAME", help: "the ONNX output to compute (default: the first, as rembg)"),
        OptionSpec("force", short: "f", help: "replace the output if it exists"),
        OptionSpec("help", short: "h", help: "show this help"),
    ]

    /// `lift import --help`.
    static let help = HelpText.subcommand(
        usage: "lift import [options] [--] MODEL.onnx -o NAME.safetensors",
        summary: ["Converts an ONNX model (rembg's U²-Net and ISNet files) into a Lift model file, once:",
                  "`lift --model NAME.safetensors photo.jpg` then loads it in milliseconds. Lift never downloads models."],
        options: options)
}
