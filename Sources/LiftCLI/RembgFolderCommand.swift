import Foundation
import Glibc
import Lift
import LiftPipeline

/// `lift p [-w] [rembg flags] IN_DIR OUT_DIR`: rembg's `p` verb. Cuts out every image under IN_DIR
/// (sub-directories too, as rembg's) into OUT_DIR, leaving inputs whose outputs exist alone; the
/// outputs are named as `lift IN_DIR -r -o OUT_DIR --skip-existing` names them (`NAME.cutout.png`,
/// the tree mirrored). With `-w` it then watches IN_DIR (not its sub-directories, as rembg) through
/// inotify and cuts out each file once it is complete: closed after writing (`IN_CLOSE_WRITE`) or
/// moved in (`IN_MOVED_TO`), replacing an earlier cut-out of the same name. The model is loaded
/// once; a file that cannot be read or decoded (a partial write) is logged and the watch goes on.
/// SIGINT or SIGTERM ends it as any `lift` command ends: temporary files removed, no partial output.
public enum RembgFolderCommand: Subcommand {
    public static let name = "p"

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        var options: CutoutOptions
        let watch: Bool
        do throws(UsageError) {
            let parser = RembgArguments(own: [RembgArguments.Flag(short: "-w", long: "--watch", key: "watch", words: 0)])
            let parsed = try parser.parse(arguments)
            if parsed.flag("help") { return environment.printHelp(help(parser)) }
            guard parsed.positionals.count == 2 else { throw .invalidOutput("expected IN_DIR and OUT_DIR, got \(parsed.positionals.count) names") }
            guard environment.fileSystem.kind(of: parsed.positionals[0]) == .directory else {
                throw .invalidOutput("\(parsed.positionals[0]) is not a directory")
            }
            watch = parsed.flag("watch")
            options = CutoutOptions(inputs: [parsed.positionals[0]])
            options.output = .path(parsed.positionals[1].hasSuffix("/") ? parsed.positionals[1] : parsed.positionals[1] + "/")
            options.recursive = true
            options.skipExisting = true
            options.request = try CutoutRequest(parsing: parsed, spelled: RembgFileCommand.spelled)
            try CutoutCommand.chooseFormats(&options, formatGiven: false, spelled: RembgFileCommand.spelled, backgroundExample: "-bgc 255 255 255 255")
        } catch {
            return environment.usageFailure(name, error.description)
        }
        let hint = "Run 'lift p --help' for usage."
        let status = CutoutAction.execute(options, environment: environment, hint: hint)
        guard watch, status != 2 else { return status }
        return watchDirectory(options, environment: environment)
    }

    /// Cuts out each file that appears complete in the input directory until a signal ends the process.
    /// - Returns: 1 when the directory cannot be watched or the processor not made.
    private static func watchDirectory(_ options: CutoutOptions, environment: CommandEnvironment) -> Int32 {
        let directory = options.inputs[0]
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0, inotify_add_watch(descriptor, directory, UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) >= 0 else {
            environment.writeStandardError("lift p: cannot watch \(TerminalText.escaped(directory)): \(String(cString: strerror(errno)))\n")
            return 1
        }
        defer { close(descriptor) }
        var single = options
        single.recursive = false
        single.skipExisting = false
        single.force = true
        let process: (ImageJob) throws -> ImageReport
        do {
            process = try environment.makeProcessor(single, environment)
        } catch {
            environment.writeStandardError("lift p: \(TerminalText.escaped("\(error)"))\n")
            return 1
        }
        if !options.quiet { environment.writeStandardError("lift p: watching \(TerminalText.escaped(directory)) (Ctrl-C ends)\n") }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in bytes.baseAddress.map { read(descriptor, $0, bytes.count) } ?? -1 }
            if count < 0 {
                if errno == EINTR { continue }
                environment.writeStandardError("lift p: cannot read the watch: \(String(cString: strerror(errno)))\n")
                return 1
            }
            for name in fileNames(in: Array(buffer.prefix(count))) {
                single.inputs = [PathText.join(directory, name)]
                do throws(UsageError) {
                    let entries = try OutputPlanner(fileSystem: environment.fileSystem).plan(single)
                    _ = BatchRunner(reporter: LogLineReporter(quiet: options.quiet, write: environment.writeStandardError), keepReports: false)
                        .run(entries, process: process)
                } catch {
                    environment.writeStandardError("lift p: \(TerminalText.escaped(error.description))\n")
                }
            }
        }
    }

    /// The names of image files in a buffer of `inotify_event` records (`wd`, `mask`, `cookie`, `len`,
    /// then `len` bytes of NUL-padded name), each once, in order; Lift's own outputs left out.
    static func fileNames(in events: [UInt8]) -> [String] {
        var names: [String] = []
        var offset = 0
        while offset + 16 <= events.count {
            let length = events.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
            let end = min(events.count, offset + 16 + length)
            let name = String(decoding: events[(offset + 16) ..< end].prefix { $0 != 0 }, as: UTF8.self)
            offset = end
            let lower = name.lowercased()
            guard OutputPlanner.imageExtensions.contains(PathText.fileExtension(of: lower)),
                  !OutputPlanner.outputSuffixes.contains(where: { lower.hasSuffix($0) }), !names.contains(name) else { continue }
            names.append(name)
        }
        return names
    }

    /// `lift p --help`.
    static func help(_ parser: RembgArguments) -> String {
        parser.help(usage: "lift p [-w] [options] IN_DIR OUT_DIR",
                    summary: ["rembg's 'p': every image under IN_DIR cut out into OUT_DIR (NAME.cutout.png, the tree mirrored), inputs",
                              "whose outputs exist left alone. -w then watches IN_DIR and cuts out each file once it is complete",
                              "(closed after writing, or moved in); Ctrl-C or SIGTERM ends it, leaving no partial output."],
                    exitStatus: "0 every input done   1 some inputs failed   2 usage error; with -w, ended by the signal")
    }
}
