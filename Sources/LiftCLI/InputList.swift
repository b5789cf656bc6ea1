import Lift
import LiftPipeline

/// `--files-from FILE|-`: a list of input paths, one per line (a trailing `\r` dropped) or, with
/// `--null`, NUL-terminated (as `find -print0` writes), appended to the inputs named on the command
/// line. Empty entries are skipped; relative paths are taken from the working directory (as
/// `tar -T` and `rsync --files-from` do), and `-` is a file of that name. The list may be a pipe
/// (`--files-from <(find …)`), read up to `maxBytes`. A missing file is reported with its line, and the batch
/// goes on. A NUL byte in a list read by lines is a usage error naming its line.
enum InputList {
    /// The largest list read (256 MiB: millions of paths).
    static let maxBytes = 256 << 20

    /// `options` with the list's paths added to `inputs` and their origins recorded; unchanged when
    /// there is no list.
    /// - Throws: `UsageError.unreadableInputList` when the list cannot be read.
    static func adding(to options: CutoutOptions) throws(UsageError) -> CutoutOptions {
        guard let source = options.inputList else { return options }
        let bytes: [UInt8]
        do {
            bytes = source == "-" ? try ImageIO.readStandardInput(maxBytes: maxBytes)
                : try ImageIO.readFile(source, maxBytes: maxBytes, allowPipes: true)  // `--files-from <(find …)`
        } catch {
            throw .unreadableInputList(path: source, reason: reason(error))
        }
        // A NUL-separated list read by lines would open the path before the first NUL and name the
        // output after the text past the last one: refused, naming the line.
        if !options.inputListNullSeparated, let nul = bytes.firstIndex(of: 0) {
            let line = bytes[..<nul].count { $0 == 0x0A } + 1
            throw .unreadableInputList(path: source, reason: "line \(line) holds a NUL byte, which no file name can; "
                                       + "a NUL-separated list (find -print0) needs --null")
        }
        var options = options
        let name = source == "-" ? "<stdin>" : source
        for (index, line) in entries(bytes, nullSeparated: options.inputListNullSeparated).enumerated() where !line.isEmpty {
            let entry = line == "-" ? "./-" : line  // a list names files: a file called '-', not standard input
            options.inputs.append(entry)
            if options.inputOrigins[entry] == nil {
                options.inputOrigins[entry] = options.inputListNullSeparated ? "entry \(index + 1) of \(name)" : "line \(index + 1) of \(name)"
            }
        }
        return options
    }

    /// The entries of a list, empty ones kept so indices are line numbers less one.
    static func entries(_ bytes: [UInt8], nullSeparated: Bool) -> [String] {
        var parts = bytes.split(separator: nullSeparated ? 0 : 0x0A, omittingEmptySubsequences: false).map { part in
            String(decoding: !nullSeparated && part.last == 0x0D ? part.dropLast() : part, as: UTF8.self)
        }
        if parts.last == "" { parts.removeLast() }
        return parts
    }

    /// The reason without the path the message already names.
    private static func reason(_ error: ImageIOError) -> String {
        switch error {
        case .cannotRead(_, let reason): reason
        case .fileTooLarge(_, let limit): "it is larger than \(limit >> 20) MiB"
        case .unknownFormat: "\(error)"
        }
    }
}
