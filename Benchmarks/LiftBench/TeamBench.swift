// lift-bench team: the fixed cost of a two-part team job (Parallel.withTeam + Parallel.forEach).
import Foundation
import LiftTensor
import Synchronization

/// Prints the one-way latency of a cache-line handoff between two threads (half a ping-pong round
/// trip on one atomic word, best of several runs): the floor under publishing a job and under
/// reporting it finished. Then, for jobs of W µs of FMA work split into two equal parts, the
/// 1-thread time, the 2-thread time in a standing team and the fixed cost C = t₂ − t₁/2 (what a job
/// pays beyond perfect halving: publishing it, the helper seeing it, reporting back). At W = 0 the
/// calling thread runs both empty parts before a helper sees the job (no handoff at all).
func runTeamBench(_ arguments: [String]) {
    let oneWay = (0 ..< 5).map { _ in pingPongOneWaySeconds(roundTrips: 100_000) }.min() ?? .nan
    print(String(format: "cross-thread handoff (half a ping-pong round trip): %.0f ns", oneWay * 1e9))
    let sums = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 16)  // one 64-byte line per part
    defer { sums.deallocate() }
    // fmaLoop does 12 × 16 FMAs per iteration; calibrate iterations per µs on this core.
    let probe = 20_000
    let probeSeconds = bestTime(clock: .threadCPU, minRuns: 20, minSeconds: 0.1) { run in
        sums[0] = fmaLoop(iterations: probe, seed: Float(run + 1) * 1e-7)
    }
    let iterationsPerMicrosecond = Double(probe) / (probeSeconds * 1e6)
    print("job work W µs   1 thread µs   2 threads µs   fixed cost C µs   2t/1t")
    for work in [0.0, 1, 2, 4, 8, 14, 20] {
        let perPart = Int(work / 2 * iterationsPerMicrosecond)
        let job: (Range<Int>) -> Void = { parts in
            for part in parts { sums[part * 16] = fmaLoop(iterations: perPart, seed: Float(part + 1) * 1e-7) }
        }
        let t1 = bestTime(clock: .threadCPU, minRuns: 20, minSeconds: 0.2) { _ in job(0 ..< 2) }
        let t2 = Parallel.withTeam(threads: 2) {
            bestTime(clock: .wall, minRuns: 20, minSeconds: 0.2) { _ in Parallel.forEach(count: 2, threads: 2, job) }
        }
        let row = String(format: "%8.1f %13.3f %14.3f %17.3f %7.2fx", work, t1 * 1e6, t2 * 1e6, (t2 - t1 / 2) * 1e6, t1 / t2)
        print(row)
    }
    if sums[0].isNaN { print("FMA loop produced NaN") }  // keeps the loops' results alive
}

/// Two threads take turns on one atomic word (odd values: the other thread's turn); the wall time of
/// `roundTrips` round trips over 2·`roundTrips` is one handoff.
private func pingPongOneWaySeconds(roundTrips: Int) -> Double {
    let word = Atomic<Int>(0)
    let start = wallSeconds()
    DispatchQueue.concurrentPerform(iterations: 2) { side in
        for trip in 0 ..< roundTrips {
            let mine = 2 &* trip &+ side, next = mine &+ 1
            while word.load(ordering: .acquiring) != mine {}
            word.store(next, ordering: .releasing)
        }
    }
    return (wallSeconds() - start) / Double(2 * roundTrips)
}

