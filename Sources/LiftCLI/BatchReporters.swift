import Foundation

/// Plain reporting, one line per image on the sink (standard error): used when standard error is not
/// a terminal or there is one input. Failures are always printed; `quiet` hides everything else.
public final class LogLineReporter: BatchReporter {
    private let write: (String) -> Void
    private let quiet: Bool
    private var total = 0

    /// A reporter writing whole lines through `write`.
    public init(quiet: Bool, write: @escaping (String) -> Void) {
        self.quiet = quiet
        self.write = write
    }

    public func begin(total: Int) { self.total = total }

    public func finished(_ report: ImageReport, done: Int) {
        if report.status == .failed {
            write("lift: \(report.logLine)\n")
        } else if !quiet {
            write(report.logLine + "\n")
        }
    }

    public func end(_ summary: BatchSummary) {
        guard !quiet, total > 1 else { return }
        write(ProgressBar.summaryLine(summary) + "\n")
    }
}

/// A live progress bar redrawn in place on a terminal (count, rate, ETA); failures are printed above
/// it as they happen so none is lost when the bar moves on.
public final class ProgressBarReporter: BatchReporter {
    private let write: (String) -> Void
    private let now: () -> Double
    private let width: Int
    private var total = 0
    private var started = 0.0

    /// A reporter drawing through `write`; `now` gives seconds on a monotonic clock; `width` is the
    /// terminal's width in columns.
    public init(width: Int = 80, now: @escaping () -> Double = ProgressBar.monotonicSeconds, write: @escaping (String) -> Void) {
        self.write = write
        self.now = now
        self.width = width
    }

    public func begin(total: Int) {
        self.total = total
        started = now()
        write(ProgressBar.clearLine + ProgressBar.render(done: 0, total: total, elapsed: 0, width: width))
    }

    public func finished(_ report: ImageReport, done: Int) {
        var text = ProgressBar.clearLine
        if report.status == .failed { text += "lift: \(report.logLine)\n" }
        text += ProgressBar.render(done: done, total: total, elapsed: now() - started, width: width)
        write(text)
    }

    public func end(_ summary: BatchSummary) {
        write(ProgressBar.clearLine + ProgressBar.summaryLine(summary, seconds: now() - started) + "\n")
    }
}

/// Text of the progress bar and the summary line (pure functions, tested directly).
public enum ProgressBar {
    /// Carriage return and "erase line" (ANSI `ESC [ 2 K`).
    public static let clearLine = "\r\u{1B}[2K"

    /// `[#######.......]  12/100  3.4 img/s  ETA 0:26`, fitted to `width` columns.
    public static func render(done: Int, total: Int, elapsed: Double, width: Int) -> String {
        let counter = "\(String(repeating: " ", count: max(0, String(total).count - String(done).count)))\(done)/\(total)"
        var stats = "  \(counter)"
        if done > 0, elapsed > 0 {
            let rate = Double(done) / elapsed
            stats += "  " + (rate >= 10 ? String(Int(rate.rounded())) : String(format: "%.1f", rate)) + " img/s"
            if done < total { stats += "  ETA " + duration(Double(total - done) / rate) }
        }
        let barWidth = max(10, min(40, width - stats.count - 3))
        let filled = total > 0 ? barWidth * done / total : barWidth
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]" + stats
    }

    /// `M:SS`, or `H:MM:SS` from an hour.
    public static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }

    /// `12 written, 1 failed, 3 skipped` (and ` in 4.2 s` when `seconds` is given).
    public static func summaryLine(_ summary: BatchSummary, seconds: Double? = nil) -> String {
        var parts = ["\(summary.succeeded) written"]
        if summary.failed > 0 { parts.append("\(summary.failed) failed") }
        if summary.skipped > 0 { parts.append("\(summary.skipped) skipped") }
        return parts.joined(separator: ", ") + (seconds.map { String(format: " in %.1f s", $0) } ?? "")
    }

    /// Seconds on the monotonic clock.
    public static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}
