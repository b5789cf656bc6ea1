import Foundation
import LiftTensor
import Synchronization
import Testing

/// Runs `jobs` `Parallel.forEach` calls of `count` items on `threads` parts each and returns how
/// often each (job, item) was visited: every entry should be 1.
private func visits(jobs: Int, count: Int, threads: Int, minimumPerPart: Int = 1) -> [Int] {
    let hits = Mutex([Int](repeating: 0, count: jobs * count))
    for job in 0 ..< jobs {
        Parallel.forEach(count: count, threads: threads, minimumPerPart: minimumPerPart) { range in
            #expect(!range.isEmpty)
            hits.withLock { for i in range { $0[job * count + i] += 1 } }
        }
    }
    return hits.withLock { $0 }
}

@Test(arguments: [(1, 1), (2, 1), (2, 2), (4, 3), (16, 16)])
func teamRunsEveryPartOnce(threads: Int, parts: Int) {
    let counts = Parallel.withTeam(threads: threads) {
        #expect(Parallel.isInTeam == (threads > 1))
        return visits(jobs: 200, count: 37, threads: parts)
    }
    #expect(counts.allSatisfy { $0 == 1 })
    #expect(!Parallel.isInTeam)
}

@Test func teamWithMoreThreadsThanCoresFinishes() {
    // 64 threads on a machine with far fewer cores: helpers that never get a core are not waited for.
    let counts = Parallel.withTeam(threads: 64) { visits(jobs: 50, count: 1000, threads: 64) }
    #expect(counts.allSatisfy { $0 == 1 })
}

@Test(arguments: [2, 4])
func teamWhoseHelpersNeverComeRunsOnTheCallingThread(threads: Int) {
    let caller = pthread_self()
    let elsewhere = Atomic<Int>(0)
    let counts = Parallel.withTeam(threads: threads, helpers: 0) {
        Parallel.forEach(count: 100, threads: threads) { _ in
            if pthread_equal(pthread_self(), caller) == 0 { elsewhere.add(1, ordering: .relaxed) }
        }
        return visits(jobs: 20, count: 100, threads: threads)
    }
    #expect(counts.allSatisfy { $0 == 1 })
    #expect(elsewhere.load(ordering: .relaxed) == 0)
}

@Test func nestedForEachInsideATeamRunsOnItsThread() {
    let outer = 8, inner = 50
    let hits = Mutex([Int](repeating: 0, count: outer * inner))
    Parallel.withTeam(threads: 3) {
        Parallel.forEach(count: outer, threads: 3) { rows in
            for row in rows {
                Parallel.forEach(count: inner, threads: 3) { columns in
                    hits.withLock { for column in columns { $0[row * inner + column] += 1 } }
                }
            }
        }
        // A nested region joins the team it is in.
        Parallel.withTeam(threads: 2) {
            #expect(Parallel.isInTeam)
            Parallel.forEach(count: 10, threads: 2) { _ in }
        }
    }
    hits.withLock { #expect($0.allSatisfy { $0 == 1 }) }
}

@Test func teamResultsAreBitIdenticalToOneThread() throws {
    var values = SeededValues(seed: 11)
    let shape = TensorShape(n: 1, h: 20, w: 21, c: 24)
    let input = values.tensor(1, 20, 21, 24)
    let conv = Conv2D(weights: values.array(24 * 24 * 9, scale: 0.2), bias: values.array(24), inputChannels: 24,
                      outputChannels: 24, parameters: Conv2DParameters(kernelHeight: 3, kernelWidth: 3, padding: .same,
                                                                      activation: .relu))
    let one = Tensor(shape: shape), team = Tensor(shape: shape)
    conv.run(input: input, output: one, threads: 1)
    for threads in [2, 3] {
        WorkGate.$splitsAnyWork.withValue(true) {
            Parallel.withTeam(threads: threads) {
                for _ in 0 ..< 5 { conv.run(input: input, output: team, threads: threads) }
            }
        }
        #expect(bitIdentical(one, team))
    }
}

@Test func idleTeamHelperSleepsInsteadOfSpinning() throws {
    let caller = pthread_self()
    let helperThread = Mutex<pthread_t?>(nil)
    let cpuSeconds = try Parallel.withTeam(threads: 2) { () throws -> Double in
        // Run small jobs until a helper has taken a part (the calling thread lingers on its own).
        let deadline = Date().addingTimeInterval(5)
        while helperThread.withLock({ $0 }) == nil, Date() < deadline {
            Parallel.forEach(count: 2, threads: 2) { _ in
                if pthread_equal(pthread_self(), caller) == 0 {
                    helperThread.withLock { $0 = pthread_self() }
                } else {
                    usleep(500)
                }
            }
        }
        let helper = try #require(helperThread.withLock { $0 }, "no helper joined the team within 5 s")
        var clock = clockid_t()
        try #require(pthread_getcpuclockid(helper, &clock) == 0)
        func helperCPU() -> Double {
            var time = timespec()
            clock_gettime(clock, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        // The region stays open but publishes nothing for 100 ms: the helper polls briefly, then sleeps.
        let before = helperCPU()
        usleep(100_000)
        return helperCPU() - before
    }
    #expect(cpuSeconds < 0.02, "an idle helper used \(cpuSeconds * 1000) ms of CPU in 100 ms")
}
