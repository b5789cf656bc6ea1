import Foundation
import Lift
import LiftCLI
import LiftPipeline
import Testing
import TestSupport

/// What a command run in process wrote to its streams.
final class CapturedStreams: @unchecked Sendable {
    private let lock = NSLock()
    private var outputBytes: [UInt8] = []
    private var errorText = ""

    var output: [UInt8] { lock.withLock { outputBytes } }
    var outputText: String { String(decoding: output, as: UTF8.self) }
    var error: String { lock.withLock { errorText } }

    /// The real process's environment with both streams captured here.
    var environment: CommandEnvironment {
        var environment = CommandEnvironment.process
        environment.writeStandardOutput = { bytes in self.lock.withLock { self.outputBytes += bytes } }
        environment.writeStandardError = { text in self.lock.withLock { self.errorText += text } }
        return environment
    }
}

/// Every sub-command is a `LiftCLI` type run in process: `LiftCommand` picks it by its name, and
/// it writes through the environment it is given.
@Suite struct SubcommandTests {
    @Test func theFirstArgumentPicksTheCommand() {
        for command in LiftCommand.subcommands {
            let (picked, rest) = LiftCommand.command(for: [command.name, "x", "--y"])
            #expect(ObjectIdentifier(picked) == ObjectIdentifier(command) && rest == ["x", "--y"])
        }
        let (cutout, arguments) = LiftCommand.command(for: ["photo.jpg", "serve"])
        #expect(ObjectIdentifier(cutout) == ObjectIdentifier(CutoutAction.self) && arguments == ["photo.jpg", "serve"])
        #expect(ObjectIdentifier(LiftCommand.command(for: []).command) == ObjectIdentifier(CutoutAction.self))
        #expect(ServeCommand.handlesSignals && !ConvertCommand.handlesSignals && !CutoutAction.handlesSignals)
    }

    /// `rembg s -p 7000 -h 0.0.0.0 -t 3 -l info` is `lift serve --port 7000 --host 0.0.0.0 --workers 3`.
    @Test func rembgsServerFlagsAreLiftServes() throws {
        #expect(try RembgServeCommand.serveArguments(["-p", "7000", "-h", "0.0.0.0", "-t", "3", "-l", "info"])
                == ["--port", "7000", "--host", "0.0.0.0", "--workers", "3"])
        #expect(try RembgServeCommand.serveArguments(["--port=7001", "--log_level", "debug", "--token", "T"])
                == ["--port", "7001", "--token", "T"])
    }

    @Test func everySubcommandPrintsItsHelp() {
        for command in LiftCommand.subcommands {
            let streams = CapturedStreams()
            #expect(command.run(["--help"], environment: streams.environment) == 0)
            #expect(streams.outputText.hasPrefix("USAGE\n  lift \(command.name)"), "\(command.name): \(streams.outputText.prefix(80))")
            #expect(streams.error.isEmpty)
        }
    }

    @Test(arguments: [
        (["convert", "a.png"], "lift convert: expected INPUT and OUTPUT.png"),
        (["convert", "a.png", "b.jpg"], "lift convert: b.jpg: convert writes PNG only"),
        (["info"], "lift info: expected one FILE"),
        (["import", "m.onnx"], "lift import: name the Lift model file with -o NAME.safetensors"),
        (["serve", "photo.jpg"], "lift serve: lift serve takes no file arguments"),
        (["serve", "--port", "70000"], "lift serve: invalid value '70000' for '--port'"),
        (["s", "-p", "70000"], "lift serve: invalid value '70000' for '--port'"),
        (["s", "-l"], "lift s: option '-l' needs a value"),
    ])
    func usageErrorsExitTwo(arguments: [String], message: String) {
        let streams = CapturedStreams()
        #expect(LiftCommand.run(arguments, environment: streams.environment) == 2)
        #expect(streams.error.hasPrefix(message), "\(streams.error)")
        #expect(streams.output.isEmpty)
    }

    @Test func convertWritesThePNGToStandardOutputOrAFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let image = RGBAImage(width: 3, height: 2, fill: (10, 200, 30, 255))
        try scratch.write(try PNGEncoder.encode(image), to: "in.png")
        let streams = CapturedStreams()
        #expect(ConvertCommand.run([scratch.path("in.png"), "-"], environment: streams.environment) == 0)
        #expect(try ImageIO.decode(streams.output) == image)
        #expect(ConvertCommand.run([scratch.path("in.png"), scratch.path("out.png")], environment: streams.environment) == 0)
        #expect(try ImageIO.read(contentsOf: scratch.path("out.png")) == image)
        #expect(ConvertCommand.run([scratch.path("in.png"), scratch.path("out.png")], environment: streams.environment) == 1)
        #expect(streams.error.contains("out.png exists (use --force to replace it)"))
    }

    @Test func infoDescribesAnImage() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try PNGEncoder.encode(RGBAImage(width: 5, height: 4, fill: (1, 2, 3, 255))), to: "in.png")
        let streams = CapturedStreams()
        #expect(InfoCommand.run([scratch.path("in.png")], environment: streams.environment) == 0)
        #expect(streams.outputText.hasPrefix("format: PNG\nsize: 5x4\n"), "\(streams.outputText)")
        #expect(InfoCommand.run([scratch.path("missing.png")], environment: streams.environment) == 1)
        #expect(streams.error.hasPrefix("lift info: "))
    }

    @Test func serveReadsItsConfiguration() throws {
        let parsed = try ArgumentParser(options: ServeCommand.options).parse(["--port", "0", "--workers", "3", "--cors-origin", "*"])
        let configuration = try ServeCommand.serveConfiguration(parsed, variables: ["LIFT_SERVE_TOKEN": "s3cret"])
        #expect(configuration.http.port == 0 && configuration.workers == 3 && configuration.corsOrigins == ["*"])
        #expect(configuration.token == "s3cret")
    }

    /// `lift info` describes a Lift model file from its header: provenance, input, graph, tensors.
    @Test func infoDescribesALiftModel() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let metadata = [
            "lift.provenance": "made by a test",
            "lift.input": #"{"width":64,"height":48,"layout":"NHWC","color":"rgb"}"#,
            "lift.graph": #"{"nodes":[{"op":"conv2d"},{"op":"relu"},{"op":"conv2d"}]}"#,
        ]
        let tensors = [SafeTensorsWriter.Tensor(name: "w", shape: [2, 3], values: [1, 2, 3, 4, 5, 6]),
                       SafeTensorsWriter.Tensor(name: "b", shape: [2], values: [0, 1])]
        try scratch.write(try SafeTensorsWriter.bytes(tensors: tensors, metadata: metadata, precision: .f16), to: "m.safetensors")
        let streams = CapturedStreams()
        #expect(LiftCommand.run(["info", scratch.path("m.safetensors")], environment: streams.environment) == 0, "\(streams.error)")
        #expect(streams.outputText == """
            format: Lift model (safetensors)
            provenance: made by a test
            input: 64x48 (layout NHWC, color rgb)
            graph: 3 nodes (conv2d 2, relu 1)
            tensors: 2 (F16 2)
            parameters: 8

            """)
    }

}
