import Dispatch
import Foundation

/// The one parallel-for in Lift: splits `0..<count` into contiguous ranges and runs them on
/// `DispatchQueue.concurrentPerform`. Work is split by index only, never by timing, so a kernel
/// whose ranges write disjoint outputs gives bit-identical results for any thread count.
public enum Parallel {
    /// Threads used when a caller does not say (the number of active processors).
    public static var defaultThreads: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Calls `body` once per part with a contiguous, non-empty sub-range of `0..<count`.
    ///
    /// The split is ggml's ceil-div split into `min(threads, count / minimumPerPart)` parts (at least
    /// one), so that every part holds at least `minimumPerPart` items; with one part (or
    /// `threads <= 1`) `body` runs on the calling thread.
    /// - Parameters:
    ///   - count: number of work items (rows, row bands, channel blocks…).
    ///   - threads: upper bound on parallel parts.
    ///   - minimumPerPart: smallest number of items worth a part of its own.
    @inlinable
    public static func forEach(count: Int, threads: Int = defaultThreads, minimumPerPart: Int = 1,
                               _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let parts = max(1, min(threads, count / max(minimumPerPart, 1)))
        if parts == 1 {
            body(0 ..< count)
            return
        }
        let perPart = (count + parts - 1) / parts
        withoutActuallyEscaping(body) { body in
            // The parts touch disjoint ranges by contract; the wrapper is where that is trusted.
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let start = part * perPart
                let end = min(start + perPart, count)
                if start < end { body(start ..< end) }
            }
        }
    }
}
