import Dispatch
import Foundation
import Synchronization

/// A team: the calling thread plus helper threads that stay alive for the length of a region
/// (`Parallel.withTeam`) and take part in every `Parallel.forEach` the calling thread starts inside
/// it. Publishing a job to helpers that are already running costs a store and a cache-line transfer,
/// where `concurrentPerform` per call wakes and joins Dispatch workers (tens of microseconds here).
///
/// Protocol: one atomic word holds the job's generation, its part count and a bit per claimed
/// part. The calling thread publishes the job with part 0 already claimed (its own, no
/// compare-and-swap on its critical path); any other part goes to whoever claims it first by a
/// compare-and-swap on that word, so the calling thread never waits for a helper that has not
/// arrived: with no helper at all it runs every part itself. A helper first tries the part of its
/// own index (helper k part k), so consecutive ops split the same way keep each slice of the data
/// on the core that produced it. A claim names its generation, so a helper that looked at an older
/// job cannot take a part of a newer one; the job's body and split are written before its
/// generation is published and read only by a thread holding a claimed part of it, and the calling
/// thread rewrites them only after every part has finished. Helpers count finished parts on a
/// counter of their own cache line that is never reset: the calling thread waits for it to reach
/// the total it expects, so starting a job writes no line a helper wrote last except the job word.
final class Team: @unchecked Sendable {
    /// Parallel parts a job may have at most (one bit each in the job word).
    static let maximumParts = 32
    /// How long an idle helper polls for the next job before it sleeps (nanoseconds).
    static let spinNanoseconds: UInt64 = 200_000

    /// `generation << 40 | parts << 32 | claimed-parts bits` (generation: 23 bits, wrapping).
    private let job = Atomic<Int>(0)
    /// Keeps `finishedByHelpers` off the job word's 64-byte cache line (stored properties are laid
    /// out in declaration order).
    private let padding = CacheLinePadding()
    /// Parts finished by helpers over the team's life (never reset; 64 bits do not wrap).
    private let finishedByHelpers = Atomic<Int>(0)
    /// The value `finishedByHelpers` has once the current job is done (calling thread only).
    private var helperPartsExpected = 0
    /// Set when the region ends: helpers leave.
    private let ended = Atomic<Bool>(false)
    /// Helpers asleep (or about to sleep) on `wakeup`.
    private let sleepers = Atomic<Int>(0)
    private let wakeup = NSCondition()

    // The current job; written by the calling thread only while no part of any job is claimed.
    private var body: ((Range<Int>) -> Void)?
    private var split = PartSplit(count: 0, parts: 1)
    /// The generation of the last job (calling thread only).
    private var generation = 0
    /// True while the calling thread runs a job (calling thread only): a job's body is set for its length.
    var isRunningJob: Bool { body != nil }

    /// Runs `body` over the ranges of `split`, on the calling thread and whichever helpers claim
    /// parts; returns once every part has run. Called only by the thread that owns the team.
    func run(_ split: PartSplit, _ body: @escaping (Range<Int>) -> Void) {
        let parts = split.parts
        precondition(parts <= Self.maximumParts, "a team job has 1...\(Self.maximumParts) parts, not \(parts)")
        precondition(!isRunningJob, "a team runs one job at a time; nested calls run on the calling thread")
        self.body = body
        self.split = split
        generation = (generation &+ 1) & 0x7F_FFFF
        let published = generation << 40 | parts << 32 | 1  // part 0 claimed by this thread
        job.store(published, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 { wakeAll() }
        split.run(part: 0, body)
        var mine = 1
        while let part = claim(generation: generation, preferring: 0) {
            split.run(part: part, body)
            mine += 1
        }
        // Every part is claimed; wait for the ones helpers still run.
        helperPartsExpected += parts - mine
        var polls = 0
        while finishedByHelpers.load(ordering: .acquiring) < helperPartsExpected {
            polls += 1
            if polls < 4096 { spinPause() } else { sched_yield() }
        }
        self.body = nil
    }

    /// Ends the region: helpers leave (a helper that starts later leaves at once).
    func end() {
        ended.store(true, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 { wakeAll() }
    }

    /// A helper's life: take parts of the current job, then of each new one, until the region ends;
    /// poll for `spinNanoseconds` after a job, then sleep until the next is published.
    /// - Parameter slot: the helper's index in the team (1 for the first helper), the part it tries first.
    func help(slot: Int) {
        ThreadTeam.set(.helper)
        defer { ThreadTeam.set(.none) }
        var seen = job.load(ordering: .acquiring) >> 40
        while true {
            while let part = claim(generation: seen, preferring: slot) {
                runClaimedPart(part)
                finishedByHelpers.add(1, ordering: .releasing)
            }
            guard let next = waitForJob(after: seen) else { return }
            seen = next
        }
    }

    /// Claims a part of job `generation`: `preferred` if it is still free, else the first free one;
    /// nil when every part is taken or a newer job replaced it.
    @inline(__always)
    private func claim(generation: Int, preferring preferred: Int) -> Int? {
        var state = job.load(ordering: .acquiring)
        while true {
            guard state >> 40 == generation else { return nil }
            let parts = state >> 32 & 0xFF
            let free = ~state & (1 << parts - 1)
            guard free != 0 else { return nil }
            let part = preferred < parts && free & 1 << preferred != 0 ? preferred : free.trailingZeroBitCount
            let (exchanged, original) = job.compareExchange(expected: state, desired: state | 1 << part,
                                                            ordering: .acquiringAndReleasing)
            if exchanged { return part }
            state = original
        }
    }

    /// Runs a part a helper claimed. Not inlined, so that the helper's reference to the body is
    /// released before it reports the part finished (the body only borrows the caller's closure).
    @inline(never)
    private func runClaimedPart(_ part: Int) {
        guard let body else { preconditionFailure("a claimed part of a team job has a body") }
        split.run(part: part, body)
    }

    /// The generation of the next job after `generation`, or nil once the region has ended.
    private func waitForJob(after generation: Int) -> Int? {
        let start = DispatchTime.now().uptimeNanoseconds
        var polls = 0
        while true {
            if ended.load(ordering: .relaxed) { return nil }
            let current = job.load(ordering: .relaxed) >> 40
            if current != generation { return current }
            polls += 1
            if polls & 63 == 0, DispatchTime.now().uptimeNanoseconds - start > Self.spinNanoseconds { break }
            spinPause()
        }
        wakeup.lock()
        sleepers.add(1, ordering: .sequentiallyConsistent)
        while !ended.load(ordering: .sequentiallyConsistent),
              job.load(ordering: .sequentiallyConsistent) >> 40 == generation {
            wakeup.wait()
        }
        sleepers.subtract(1, ordering: .sequentiallyConsistent)
        wakeup.unlock()
        return ended.load(ordering: .relaxed) ? nil : job.load(ordering: .acquiring) >> 40
    }

    private func wakeAll() {
        wakeup.lock()
        wakeup.broadcast()
        wakeup.unlock()
    }
}

/// 56 bytes of nothing: after an 8-byte atomic, puts the next stored property on the next 64-byte line.
private struct CacheLinePadding {
    var words: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)
}

/// What the current thread is to a team: nothing, the owner (the thread that entered the region),
/// or a helper or owner inside a job's part (where a nested `forEach` runs on the thread itself).
enum ThreadTeam {
    case none
    case owner(Team)
    case helper

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status))")
        return key
    }()
    /// The stored marker for helpers (no team object is needed: a helper never starts a job).
    private static var helperMarker: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    /// The current thread's role.
    @inline(__always)
    static var current: ThreadTeam {
        guard let value = pthread_getspecific(key) else { return .none }
        if value == helperMarker { return .helper }
        return .owner(Unmanaged<Team>.fromOpaque(value).takeUnretainedValue())
    }

    /// Sets the current thread's role (the owner's team is kept alive by its region, not by this).
    static func set(_ role: ThreadTeam) {
        let value: UnsafeMutableRawPointer?
        switch role {
        case .none: value = nil
        case .owner(let team): value = Unmanaged.passUnretained(team).toOpaque()
        case .helper: value = helperMarker
        }
        pthread_setspecific(key, value)
    }
}

#if arch(x86_64)
/// The x86 `pause` instruction: tells the core it is in a spin-wait loop (eases the memory-order
/// flush when the awaited store arrives and yields pipeline resources). Swift has no spelling for
/// it, so the LLVM intrinsic is named directly. ThreadSanitizer builds must add
/// `-Xswiftc -Xllvm -Xswiftc -tsan-handle-cxx-exceptions=false`: otherwise TSan turns this call into
/// an `invoke` (for C++ exception cleanup, which Swift never needs) and LLVM rejects invoking an intrinsic.
@_silgen_name("llvm.x86.sse2.pause")
@usableFromInline func spinPause()
#else
/// No spin hint on this architecture.
@inline(__always) @usableFromInline func spinPause() {}
#endif
