import Foundation
import Lift
import LiftPipeline

/// The `lift` cut-out action from arguments to exit status: parse, plan, load the model once, run the
/// batch, write the JSON report. Usage errors exit 2, failed inputs 1, success 0.
public enum CutoutAction: Subcommand {
    public static let name = ""

    /// Runs the cut-out action with `arguments` (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        let parsed: CutoutOptions
        do throws(UsageError) {
            switch try CutoutCommand.parse(arguments) {
            case .help:
                return HelpText.emit(HelpText.full, write: environment.writeStandardOutput, report: environment.writeStandardError)
            case .version:
                return HelpText.emit("lift \(LiftVersion.string)\n", write: environment.writeStandardOutput,
                                     report: environment.writeStandardError)
            case .run(let options):
                parsed = options
            }
            try checkSecondNameIsNoOutput(parsed, fileSystem: environment.fileSystem)
        } catch {
            environment.writeStandardError("lift: \(TerminalText.escaped(error.description))\n\(HelpText.hint)\n")
            return 2
        }
        return execute(parsed, environment: environment)
    }

    /// Runs parsed cut-out options (from `lift`'s flags or a rembg verb's, `RembgFileCommand`): reads
    /// the input list, plans, loads the model once, runs the batch, writes the JSON report.
    /// - Parameter hint: the line printed after a usage error.
    static func execute(_ parsed: CutoutOptions, environment: CommandEnvironment, hint: String = HelpText.hint) -> Int32 {
        let options: CutoutOptions
        let entries: [PlanEntry]
        do throws(UsageError) {
            options = try InputList.adding(to: parsed)
            if let model = options.request.model { try checkModelExists(model) }
            entries = try OutputPlanner(fileSystem: environment.fileSystem).plan(options)
            let jobs = entries.compactMap { if case .process(let job) = $0 { job } else { nil } }
            if environment.standardOutputIsTerminal, jobs.contains(where: { $0.output == .standardOutput }) {
                throw UsageError.invalidOutput("refusing to write a PNG to the terminal; redirect standard output or use -o PATH")
            }
            if environment.standardInputIsTerminal, jobs.contains(where: { $0.input == .standardInput }) {
                throw UsageError.invalidOutput("'-' reads an image from standard input, which is the terminal; pipe a file in")
            }
        } catch {
            environment.writeStandardError("lift: \(TerminalText.escaped(error.description))\n\(hint)\n")
            return 2
        }

        removeStaleTemporaryFiles(for: entries, report: options.jsonReport, quiet: options.quiet, environment: environment)
        var process: (ImageJob) throws -> ImageReport = { _ in preconditionFailure("no job was planned") }
        if entries.contains(where: { if case .process = $0 { true } else { false } }) {
            do {
                process = try environment.makeProcessor(options, environment)
            } catch {
                environment.writeStandardError("lift: \(TerminalText.escaped("\(error)"))\n")
                return 1
            }
            if !options.quiet, let note = SubjectLifter.slowBuildNote { environment.writeStandardError("lift: note: \(note)\n") }
        }
        var reporter: any BatchReporter
        if !options.quiet, environment.standardErrorIsTerminal, entries.count > 1 {
            reporter = ProgressBarReporter(width: environment.terminalWidth, write: environment.writeStandardError)
        } else {
            reporter = LogLineReporter(quiet: options.quiet, write: environment.writeStandardError)
        }
        let lines = options.jsonLines ? JSONLinesReporter(inner: reporter, write: environment.writeStandardOutput) : nil
        if let lines { reporter = lines }
        let (summary, reports) = BatchRunner(reporter: reporter, keepReports: options.jsonReport != nil).run(entries, process: process)
        var exitCode = summary.exitCode
        if let error = lines?.writeError {
            environment.writeStandardError("lift: --json-lines: \(error)\n")
            exitCode = 1
        }
        guard let target = options.jsonReport else { return exitCode }
        do {
            let document = try BatchReport(images: reports, summary: summary).encoded()
            switch target {
            case .standardOutput: try environment.writeStandardOutput(document)
            case .path(let path): try ImageFiles.write(document, to: path, overwrite: true)
            }
        } catch {
            environment.writeStandardError("lift: cannot write the JSON report: \(TerminalText.escaped("\(error)"))\n")
            return 1
        }
        return exitCode
    }

    /// Refuses `lift in.jpg out.png` (rembg's `i IN OUT` habit) before anything is written: two
    /// inputs, no `-o`, and the second does not exist and is named like an image Lift writes.
    static func checkSecondNameIsNoOutput(_ options: CutoutOptions, fileSystem: any FileSystemView) throws(UsageError) {
        guard options.inputs.count == 2, options.output == nil, options.inputList == nil else { return }
        let (first, second) = (options.inputs[0], options.inputs[1])
        guard fileSystem.kind(of: second) == .missing, OutputFormat(fileExtension: PathText.fileExtension(of: second)) != nil else { return }
        throw .invalidOutput("\(second) does not exist; did you mean -o \(second)? ('lift \(first) -o \(second)'; 'lift i \(first) \(second)' takes rembg's order)")
    }

    /// Refuses, as a usage error, a `--model` that names no shipped model and no file: a model file
    /// that does not exist, or a rembg model name without its `NAME.onnx` in rembg's directory.
    package static func checkModelExists(_ model: ModelName) throws(UsageError) {
        guard !model.isShipped else { return }
        let expected = ModelName.allCases.map(\.rawValue).joined(separator: ", ")
        do {
            let url = try ModelCatalog.url(for: model)
            var status = stat()
            guard stat(url.path, &status) == 0 else {
                throw UsageError.invalidValue(option: "--model", value: url.path, expected: expected + ", or a model file that exists")
            }
        } catch let error as UsageError {
            throw error
        } catch {
            throw .invalidValue(option: "--model", value: model.rawValue,
                                expected: expected + ", or a rembg model; there is no " + ModelCatalog.rembgDirectory().appendingPathComponent(model.fileName).path
                                    + " (rembg's model directory, U2NET_HOME; Lift never downloads models)")
        }
    }

    /// Removes the temporary files that a killed run left in the directories this run writes to
    /// (`AtomicFile.removeStaleTemporaryFiles`), each directory once, and says so unless `quiet`.
    static func removeStaleTemporaryFiles(for entries: [PlanEntry], report: OutputTarget?, quiet: Bool,
                                          environment: CommandEnvironment) {
        var paths: [String] = []
        for entry in entries {
            switch entry {
            case .process(let job): paths += job.writtenPaths
            case .skip(_, let output): paths.append(output)
            case .duplicate, .fail: break
            }
        }
        if case .path(let path) = report { paths.append(path) }
        var seen: Set<String> = []
        for directory in paths.map(PathText.directory(of:)) where seen.insert(directory).inserted {
            for removed in AtomicFile.removeStaleTemporaryFiles(in: directory) where !quiet {
                environment.writeStandardError("lift: removed \(TerminalText.escaped(removed)), a temporary file left by an interrupted run\n")
            }
        }
    }
}
