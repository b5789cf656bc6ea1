import Lift

/// Counts at the end of a batch, and the exit status they mean.
public struct BatchSummary: Sendable, Equatable, Codable {
    /// Images written.
    public var succeeded = 0
    /// Inputs that failed (including plan failures such as a missing file).
    public var failed = 0
    /// Inputs skipped by `--skip-existing`, or because an earlier input is the same file.
    public var skipped = 0

    /// Zero counts.
    public init() {}

    /// 0 when nothing failed, 1 when some input failed (usage errors, 2, never get this far).
    public var exitCode: Int32 { failed > 0 ? 1 : 0 }
}

/// Receives batch events for display: a progress bar, log lines, or nothing.
public protocol BatchReporter: AnyObject {
    /// The batch is about to process `total` entries.
    func begin(total: Int)
    /// An entry finished (ok, skipped or failed); `done` entries of `total` are finished.
    func finished(_ report: ImageReport, done: Int)
    /// The batch is over.
    func end(_ summary: BatchSummary)
}

/// Runs a planned batch: each job goes through `process`, whose errors are caught and reported with
/// the file name while the batch goes on.
public struct BatchRunner {
    private let reporter: any BatchReporter
    private let keepReports: Bool

    /// A runner that tells `reporter` about progress. `keepReports` keeps every `ImageReport` for
    /// `--json` (they are small); otherwise nothing accumulates across images.
    public init(reporter: any BatchReporter, keepReports: Bool) {
        self.reporter = reporter
        self.keepReports = keepReports
    }

    /// Processes `entries` in order. `process` does the work for one job and returns its report
    /// (status `ok`); anything it throws becomes a `failed` report carrying the error's description.
    public func run(_ entries: [PlanEntry], process: (ImageJob) throws -> ImageReport) -> (BatchSummary, [ImageReport]) {
        var summary = BatchSummary()
        var reports: [ImageReport] = []
        reporter.begin(total: entries.count)
        for (index, entry) in entries.enumerated() {
            var report: ImageReport
            switch entry {
            case .process(let job):
                do {
                    report = try process(job)
                } catch {
                    report = ImageReport(input: job.input.displayName, status: .failed)
                    report.error = Self.reason(for: error, input: job.input.displayName)
                }
            case .skip(let input, let output):
                report = ImageReport(input: input.displayName, status: .skipped)
                report.output = output
            case .duplicate(let input, let first):
                report = ImageReport(input: input, status: .skipped)
                report.sameFileAs = first
            case .fail(let input, let failure):
                report = ImageReport(input: input, status: .failed)
                report.error = failure.description
            }
            switch report.status {
            case .ok: summary.succeeded += 1
            case .failed: summary.failed += 1
            case .skipped: summary.skipped += 1
            }
            reporter.finished(report, done: index + 1)
            if keepReports { reports.append(report) }
        }
        reporter.end(summary)
        return (summary, reports)
    }

    /// The error's sentence; a `LiftError` about the input file itself is given without the file name,
    /// which the log line already starts with.
    static func reason(for error: any Error, input: String) -> String {
        if let error = error as? LiftError, error.path == input { return error.detail }
        return "\(error)"
    }
}
