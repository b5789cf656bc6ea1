import Foundation
import TestSupport

/// Runs the built `lift` executable and captures what it does.
enum LiftBinary {
    /// What one run produced.
    struct Result {
        var status: Int32
        var standardOutput: [UInt8]
        var standardError: String
        var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// The `lift` binary: `$LIFT_BINARY`, else next to this test bundle (SwiftPM puts every product of
    /// a configuration in one directory).
    static let url: URL = {
        if let path = ProcessInfo.processInfo.environment["LIFT_BINARY"] { return URL(fileURLWithPath: path) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // The test runner may live inside `<Package>PackageTests.xctest/...`; walk up to the build directory.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("lift")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return executable.deletingLastPathComponent().appendingPathComponent("lift")
    }()

    /// Feeding standard input to a run that exits without reading it (a usage error) must fail that
    /// write with EPIPE, not end the test process with SIGPIPE.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Runs `lift arguments` in `directory` with `input` on standard input (or the file at
    /// `standardInputPath`, such as `/dev/zero`); standard output and error go to the files at
    /// `standardOutputPath` and `standardErrorPath` (such as `/dev/full`) when given. A run still going
    /// after `timeout` seconds is killed (status 9 by signal), so a hang fails its test instead of
    /// stalling the suite. `executable` runs another program instead (a shell that sets limits first).
    static func run(_ arguments: [String], in directory: URL? = nil, input: [UInt8] = [],
                    environment extra: [String: String] = [:], standardInputPath: String? = nil,
                    standardOutputPath: String? = nil, standardErrorPath: String? = nil,
                    timeout: TimeInterval = 300, executable: URL? = nil) throws -> Result {
        _ = ignoreBrokenPipes
        let process = Process()
        process.executableURL = executable ?? url
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        let inputFile = standardInputPath.flatMap { FileHandle(forReadingAtPath: $0) }
        defer { try? inputFile?.close() }
        process.standardInput = inputFile ?? stdin
        let outputFile = standardOutputPath.flatMap { FileHandle(forWritingAtPath: $0) }
        defer { try? outputFile?.close() }
        if outputFile != nil { try stdout.fileHandleForWriting.close() }
        process.standardOutput = outputFile ?? stdout
        let errorFile = standardErrorPath.flatMap { FileHandle(forWritingAtPath: $0) }
        defer { try? errorFile?.close() }
        if errorFile != nil { try stderr.fileHandleForWriting.close() }
        process.standardError = errorFile ?? stderr
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Read both pipes concurrently with writing, so neither side blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outBytes = Data(), errBytes = Data()
        DispatchQueue.global().async(group: group) { outBytes = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errBytes = stderr.fileHandleForReading.readDataToEndOfFile() }
        if !input.isEmpty { try? stdin.fileHandleForWriting.write(contentsOf: Data(input)) }
        try stdin.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, standardOutput: [UInt8](outBytes),
                      standardError: String(decoding: errBytes, as: UTF8.self))
    }
}
