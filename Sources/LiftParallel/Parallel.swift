import Dispatch
import Synchronization
import Foundation

/// Lift's parallel-for: splits `0..<count` into contiguous ranges and runs them on
/// `DispatchQueue.concurrentPerform`, or, inside `withTeam`, on the region's standing team of
/// threads. Work is split by index only, never by timing, so a kernel whose ranges write disjoint
/// outputs gives bit-identical results for any thread count, with or without a team. `claimEach`
/// shares out items of uneven cost by timing instead, for work whose result does not depend on
/// which thread does an item.
public enum Parallel {
    /// Threads used when a caller does not say (the number of active processors).
    public static var defaultThreads: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Calls `body` once per part with a contiguous, non-empty sub-range of `0..<count`.
    ///
    /// The split is ggml's ceil-div split into `min(threads, count / minimumPerPart)` parts (at least
    /// one), so that every part holds at least `minimumPerPart` items; with one part (or
    /// `threads <= 1`) `body` runs on the calling thread. Called by the thread that entered
    /// `withTeam`, the parts go to that team (each thread takes the part of its own index if it is
    /// still free, then any free one);
    /// called from inside another part of a team job, `body` runs on the calling thread; otherwise
    /// each call is one `concurrentPerform`.
    /// - Parameters:
    ///   - count: number of work items (rows, row bands, channel blocks…).
    ///   - threads: upper bound on parallel parts.
    ///   - minimumPerPart: smallest number of items worth a part of its own.
    @inlinable
    public static func forEach(count: Int, threads: Int = defaultThreads, minimumPerPart: Int = 1,
                               _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let parts = partCount(count: count, threads: threads, minimumPerPart: minimumPerPart)
        if parts == 1 {
            body(0 ..< count)
            return
        }
        forEach(count: count, parts: parts, body)
    }

    /// The number of parts `forEach(count:threads:minimumPerPart:)` splits `count` items into:
    /// `min(threads, count / minimumPerPart)`, at least 1. Kernels that shape their work items to the
    /// part count ask this first.
    @inlinable
    public static func partCount(count: Int, threads: Int, minimumPerPart: Int) -> Int {
        max(1, min(threads, count / max(minimumPerPart, 1)))
    }

    /// Runs `parts` (≥ 2) ceil-div parts of `0..<count` on the current team or `concurrentPerform`.
    @usableFromInline
    static func forEach(count: Int, parts: Int, _ body: (Range<Int>) -> Void) {
        let team: Team
        switch ThreadTeam.current {
        case .helper:
            body(0 ..< count)
            return
        case .owner(let current):
            guard !current.isRunningJob else {
                body(0 ..< count)
                return
            }
            team = current
        case .none:
            let split = PartSplit(count: count, parts: parts)
            withoutActuallyEscaping(body) { body in
                // The parts touch disjoint ranges by contract; the wrapper is where that is trusted.
                nonisolated(unsafe) let body = body
                DispatchQueue.concurrentPerform(iterations: split.parts) { split.run(part: $0, body) }
            }
            return
        }
        let split = PartSplit(count: count, parts: min(parts, Team.maximumParts))
        withoutActuallyEscaping(body) { body in team.run(split, body) }
    }

    /// Runs up to `threads` workers that share out the items `0..<count` one at a time: each worker
    /// calls `body` once with a `claim` function that returns the next unclaimed item, or nil when
    /// none is left. Unlike `forEach`'s fixed contiguous parts, this balances items of uneven cost
    /// (a worker that drew cheap items claims more); `body` keeps per-worker state (buffers,
    /// compressors) across the items it claims. Items are claimed in increasing order overall, but
    /// which worker gets which item depends on timing, so results must not depend on it.
    /// - Parameters:
    ///   - count: number of work items.
    ///   - threads: upper bound on workers (and no more than `count`).
    ///   - body: one worker; runs on the calling thread when there is one worker.
    @inlinable
    public static func claimEach(count: Int, threads: Int = defaultThreads,
                                 _ body: (_ claim: () -> Int?) -> Void) {
        guard count > 0 else { return }
        let workers = partCount(count: count, threads: threads, minimumPerPart: 1)
        let next = Atomic<Int>(0)
        let claim = { () -> Int? in
            let item = next.wrappingAdd(1, ordering: .relaxed).oldValue
            return item < count ? item : nil
        }
        if workers == 1 {
            body(claim)
            return
        }
        forEach(count: workers, parts: workers) { range in
            for _ in range { body(claim) }
        }
    }

    /// Runs `body` on the calling thread with a team of `threads − 1` helper threads standing by:
    /// every `Parallel.forEach` that `body` makes on this thread hands its parts to the team, which
    /// costs far less than a `concurrentPerform` per call (no worker to wake and join). Helpers
    /// poll for the next job for about 0.2 ms, then sleep until one comes, and leave when `body`
    /// returns, so a team idles at no cost. Helpers are one `concurrentPerform` of `threads − 1`
    /// iterations, started asynchronously: a helper that has not started yet (busy machine, Dispatch
    /// pool full) is simply not waited for; the calling thread claims every part nobody else took.
    ///
    /// With `threads <= 1`, or when this thread is already in a team, `body` just runs.
    /// - Parameters:
    ///   - threads: the team's size, the calling thread included.
    ///   - helpers: helper threads to start (default and at most `threads − 1`); fewer leave their
    ///     parts to the threads that are there (tests use 0 to check a team whose helpers never come).
    ///   - body: the region; runs on the calling thread.
    public static func withTeam<Result, Failure: Error>(threads: Int, helpers: Int? = nil,
                                                        _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard threads > 1, case .none = ThreadTeam.current else { return try body() }
        let team = Team()
        let started = max(0, min(helpers ?? threads - 1, threads - 1))
        if started > 0 {
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: started) { team.help(slot: $0 + 1) }
            }
        }
        ThreadTeam.set(.owner(team))
        defer {
            ThreadTeam.set(.none)
            team.end()
        }
        return try body()
    }

    /// True when the calling thread is running a team region of more than one thread, that is when
    /// a `forEach` it makes goes to standing helpers (kernels may then split smaller work).
    public static var isInTeam: Bool {
        if case .owner = ThreadTeam.current { return true }
        return false
    }
}
