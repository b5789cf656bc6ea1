import LiftTensor
import Foundation
import Synchronization
import Testing

/// Includes splits whose trailing parts are empty (5 items in 4 parts of 2: the fourth has none).
@Test(arguments: [(0, 4), (1, 4), (7, 2), (7, 3), (100, 8), (5, 1), (5, 4)])
func parallelForCoversEveryIndexOnce(count: Int, threads: Int) {
    let hits = Mutex([Int](repeating: 0, count: count))
    Parallel.forEach(count: count, threads: threads) { range in
        #expect(!range.isEmpty)
        hits.withLock { for i in range { $0[i] += 1 } }
    }
    hits.withLock { #expect($0.allSatisfy { $0 == 1 }) }
}

/// Every item is claimed exactly once, by no more workers than items or threads, also when items
/// take uneven time (the early items sleep, so later ones go to whichever worker is free), and
/// inside a team region.
@Test(arguments: [(0, 4), (1, 4), (7, 2), (7, 3), (100, 8), (5, 1), (40, 2)])
func claimEachClaimsEveryItemOnce(count: Int, threads: Int) {
    for inTeam in [false, true] {
        let hits = Mutex([Int](repeating: 0, count: count))
        let workers = Mutex(0)
        Parallel.withTeam(threads: inTeam ? threads : 1) {
            Parallel.claimEach(count: count, threads: threads) { claim in
                workers.withLock { $0 += 1 }
                while let item = claim() {
                    if item < 3 { usleep(2000) }
                    hits.withLock { $0[item] += 1 }
                }
            }
        }
        hits.withLock { #expect($0.allSatisfy { $0 == 1 }, "team \(inTeam)") }
        workers.withLock { #expect($0 == max(min(count, threads), count == 0 ? 0 : 1), "team \(inTeam)") }
    }
}
