import Foundation

/// `--json-lines`: one JSON object per image (an `ImageReport`: input, outputs, status, error, sizes,
/// instances, timings; keys sorted, one line) written to standard output the moment the image
/// finishes, for drivers, `RDD.pipe` and log shippers; forwards every event to `inner` (the lines
/// or bar on standard error). When standard output cannot take a line (a closed pipe, a full disk)
/// the batch goes on, no further line is tried, and `writeError` says why.
public final class JSONLinesReporter: BatchReporter {
    private let inner: any BatchReporter
    private let write: ([UInt8]) throws -> Void
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    /// The first failure to write a line, if any.
    public private(set) var writeError: (any Error)?

    /// A reporter writing lines through `write` and passing events on to `inner`.
    public init(inner: any BatchReporter, write: @escaping ([UInt8]) throws -> Void) {
        self.inner = inner
        self.write = write
    }

    public func begin(total: Int) { inner.begin(total: total) }

    public func finished(_ report: ImageReport, done: Int) {
        if writeError == nil {
            do {
                try write([UInt8](try encoder.encode(report)) + [0x0A])
            } catch {
                writeError = error
            }
        }
        inner.finished(report, done: done)
    }

    public func end(_ summary: BatchSummary) { inner.end(summary) }
}
