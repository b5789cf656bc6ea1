// libFuzzer target for the cut-out command line: any arguments must parse into a command or a typed
// UsageError, and any parsed command must plan its outputs (names made from the inputs' paths,
// short, `/`-only, trailing-slash and `..` ones included) or fail with a UsageError, never crash.
// The bytes are the arguments separated by NUL. Build and run (or Benchmarks/fuzz.sh):
//   LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-cli
//   SWIFT_BACKTRACE=enable=no .build/release/fuzz-cli CORPUS Tests/Fixtures/cli
import Lift
import LiftCLI
import LiftPipeline

/// A small file tree in memory under the working directory `/w`, so planning never touches the disk.
private struct FixedTree: FileSystemView {
    static let files: Set<String> = ["/w/a.jpg", "/w/b.png", "/w/m", "/w/d/c.jpg", "/w/d/e/f.PNG", "/w/d/c.cutout.png", "/w/out/a.cutout.png"]
    static let directories: Set<String> = ["/", "/w", "/w/d", "/w/d/e", "/w/out"]

    func kind(of path: String) -> FileKind {
        let canonical = canonicalPath(path)
        return Self.files.contains(canonical) ? .file : Self.directories.contains(canonical) ? .directory : .missing
    }

    func contentsOfDirectory(_ path: String) throws -> [String] {
        let canonical = canonicalPath(path)
        return Self.files.union(Self.directories).filter { $0 != canonical && PathText.directory(of: $0) == canonical }
            .map { PathText.name(of: $0) }
    }

    func canonicalPath(_ path: String) -> String { PathText.standardized(path, currentDirectory: "/w") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCLI(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    for argument in arguments {
        _ = (PathText.directory(of: argument), PathText.stem(of: argument), PathText.fileExtension(of: argument))
        _ = ImageJob.subjectPath(argument, number: 2)
    }
    guard case .run(let options)? = try? CutoutCommand.parse(arguments), options.inputList == nil else { return 0 }
    guard let entries = try? OutputPlanner(fileSystem: FixedTree()).plan(options) else { return 0 }
    for case .process(let job) in entries {
        for path in job.writtenPaths { _ = (PathText.directory(of: path), PathText.name(of: path)) }
    }
    return 0
}
