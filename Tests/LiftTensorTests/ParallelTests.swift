import LiftTensor
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
