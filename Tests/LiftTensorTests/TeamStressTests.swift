import Foundation
import LiftTensor
import Synchronization
import Testing

// Stress checks of the team executor (`Parallel.withTeam`), off by default: run with
// `LIFT_STRESS_TESTS=1 swift test -c release --filter TeamStress` (or under ThreadSanitizer, see
// Benchmarks/RESULTS.md "Team executor review"). `LIFT_STRESS_ROUNDS` scales the work (default 1).

/// True when the stress tests were asked for.
let stressTestsEnabled = ProcessInfo.processInfo.environment["LIFT_STRESS_TESTS"] == "1"
/// How many times over the stress tests repeat their work.
let stressRounds = max(1, Int(ProcessInfo.processInfo.environment["LIFT_STRESS_ROUNDS"] ?? "") ?? 1)

/// Runs `body(index)` on `count` threads of their own (not Dispatch workers) at once and waits for all.
func onSeparateThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    for index in 0 ..< count {
        let thread = Thread {
            body(index)
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    for _ in 0 ..< count { done.wait() }
}

/// Per-item visit counters and per-item values one team job writes, checked after the job.
private final class JobRecord: @unchecked Sendable {
    let capacity: Int
    let visits: UnsafeMutablePointer<Atomic<Int>>
    let values: UnsafeMutablePointer<UInt32>

    init(capacity: Int) {
        self.capacity = capacity
        visits = .allocate(capacity: capacity)
        for i in 0 ..< capacity { (visits + i).initialize(to: Atomic(0)) }
        values = .allocate(capacity: capacity)
    }

    deinit {
        visits.deinitialize(count: capacity)
        visits.deallocate()
        values.deallocate()
    }

    func reset(count: Int) {
        for i in 0 ..< count { visits[i].store(0, ordering: .relaxed) }
        values.update(repeating: 0, count: count)
    }
}

/// A value that depends on the job and the item only (so any split must reproduce it exactly).
@inline(__always)
private func itemValue(job: UInt64, item: Int) -> UInt32 {
    var x = job &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(item) &* 0xBF58_476D_1CE4_E5B9
    x ^= x >> 31
    return UInt32(truncatingIfNeeded: x)
}

/// One thread's share of the stress: `regions` team regions of random size, each with random jobs
/// (random counts, part counts and minimum part sizes, some with a nested `forEach` per part, some
/// in a nested region), checking after each job that every item ran exactly once with its value.
/// Returns the number of problems found.
private func stressRegions(seed: UInt64, regions: Int, jobsPerRegion: Int) -> Int {
    var random = SeededValues(seed: seed)
    func draw(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(random.seed() % UInt64(range.count))
    }
    let record = JobRecord(capacity: 5000)
    var problems = 0
    for region in 0 ..< regions {
        let threads = draw(2 ... 6)
        let helpers = draw(0 ... 3) == 0 ? draw(0 ... threads - 1) : threads - 1
        Parallel.withTeam(threads: threads, helpers: helpers) {
            for job in 0 ..< jobsPerRegion {
                let count = draw(1 ... 5000), parts = draw(1 ... 40), minimum = draw(1 ... 64)
                let nested = draw(0 ... 3) == 0, inNestedRegion = draw(0 ... 7) == 0
                let split = min(parts, count / minimum) > 1
                let key = seed &* 1_000_003 &+ UInt64(region * jobsPerRegion + job)
                record.reset(count: count)
                let run = {
                    Parallel.forEach(count: count, threads: parts, minimumPerPart: minimum) { range in
                        let outer = pthread_self()
                        if nested {
                            // A forEach inside a part of a split job runs on the part's thread, over
                            // its whole range (with one part, the outer call was no team job, and the
                            // inner one may go to the team: then it only has to cover its range).
                            let covered = Atomic<Int>(0)
                            Parallel.forEach(count: range.count, threads: 4) { inner in
                                covered.add(inner.count, ordering: .relaxed)
                                if split, pthread_equal(pthread_self(), outer) == 0 || inner != 0 ..< range.count {
                                    record.visits[0].add(1_000_000, ordering: .relaxed)
                                }
                            }
                            if covered.load(ordering: .relaxed) != range.count {
                                record.visits[0].add(1_000_000, ordering: .relaxed)
                            }
                        }
                        for i in range {
                            record.visits[i].add(1, ordering: .relaxed)
                            record.values[i] = itemValue(job: key, item: i)
                        }
                    }
                }
                if inNestedRegion { Parallel.withTeam(threads: threads, run) } else { run() }
                for i in 0 ..< count where record.visits[i].load(ordering: .relaxed) != 1
                    || record.values[i] != itemValue(job: key, item: i) {
                    problems += 1
                }
            }
        }
        if Parallel.isInTeam { problems += 1 }
    }
    return problems
}

@Suite("Team executor stress (LIFT_STRESS_TESTS=1)", .enabled(if: stressTestsEnabled, "set LIFT_STRESS_TESTS=1"))
struct TeamStressTests {
    @Test("Thousands of random team jobs, four teams at once, run every part exactly once")
    func randomJobsOnConcurrentTeams() {
        let problems = Atomic<Int>(0)
        onSeparateThreads(4) { index in
            let found = stressRegions(seed: 0x5EED + UInt64(index), regions: 40 * stressRounds, jobsPerRegion: 50)
            problems.add(found, ordering: .relaxed)
        }
        #expect(problems.load(ordering: .relaxed) == 0)
    }

    @Test("Many short regions (helpers arriving after the region ended) leave no team state behind")
    func shortRegionsOnDispatchWorkers() {
        let problems = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            for region in 0 ..< 500 * stressRounds {
                Parallel.withTeam(threads: 2 + region % 3) {
                    if region % 2 == 0 { Parallel.forEach(count: 64, threads: 3) { _ in } }
                }
                if Parallel.isInTeam { problems.add(1, ordering: .relaxed) }
            }
            _ = index
        }
        // A region that throws leaves its thread outside any team too.
        struct Thrown: Error {}
        #expect(throws: Thrown.self) {
            try Parallel.withTeam(threads: 3) { () throws(Thrown) in
                Parallel.forEach(count: 10, threads: 3) { _ in }
                throw Thrown()
            }
        }
        #expect(!Parallel.isInTeam)
        #expect(problems.load(ordering: .relaxed) == 0)
    }

    @Test("Random convolutions in teams on three threads at once are bit-identical to one thread")
    func convolutionsOnConcurrentTeams() {
        let problems = Atomic<Int>(0)
        onSeparateThreads(3) { index in
            var values = SeededValues(seed: 77 + UInt64(index))
            for round in 0 ..< 12 * stressRounds {
                let c = 4 + Int(values.seed() % 20), h = 3 + Int(values.seed() % 30), w = 3 + Int(values.seed() % 30)
                let kernel = round % 2 == 0 ? 3 : 1
                let shape = TensorShape(n: 1, h: h, w: w, c: c)
                let input = values.tensor(1, h, w, c)
                let conv = Conv2D(weights: values.array(c * c * kernel * kernel, scale: 0.2), bias: values.array(c),
                                  inputChannels: c, outputChannels: c,
                                  parameters: Conv2DParameters(kernelHeight: kernel, kernelWidth: kernel, padding: .same,
                                                               activation: .relu))
                let one = Tensor(shape: shape), team = Tensor(shape: shape)
                conv.run(input: input, output: one, threads: 1)
                let threads = 2 + round % 3
                WorkGate.$splitsAnyWork.withValue(round % 3 != 0) {
                    Parallel.withTeam(threads: threads) {
                        for _ in 0 ..< 4 {
                            conv.run(input: input, output: team, threads: threads)
                            if !bitIdentical(one, team) { problems.add(1, ordering: .relaxed) }
                        }
                    }
                }
            }
        }
        #expect(problems.load(ordering: .relaxed) == 0)
    }
}
