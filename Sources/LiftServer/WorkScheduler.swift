import Foundation

/// Admits photos to be processed: `workers` at once, up to `queueCapacity` more waiting in arrival
/// order, and none beyond that (the caller answers 503), so overload costs a short queue and a
/// refusal, never unbounded memory or latency.
package final class WorkScheduler: @unchecked Sendable {
    /// Photos processed at once.
    package let workers: Int
    /// Photos that may wait for a worker.
    package let queueCapacity: Int
    private let condition = NSCondition()
    private var running = 0
    private var waiting = 0
    /// Tickets hand out places in line; `serving` is the next one admitted.
    private var nextTicket = 0
    private var serving = 0

    package init(workers: Int, queueCapacity: Int) {
        precondition(workers >= 1 && queueCapacity >= 0)
        self.workers = workers
        self.queueCapacity = queueCapacity
    }

    /// Photos being processed and photos waiting, now.
    package var load: (running: Int, waiting: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (running, waiting)
    }

    /// Whether a new photo would be refused now.
    package var isFull: Bool {
        let (running, waiting) = load
        return running >= workers && waiting >= queueCapacity
    }

    /// Runs `work` once a worker is free; returns nil at once, without running it, when every
    /// worker is busy and the queue is full.
    package func run<T>(_ work: () -> T) -> T? {
        condition.lock()
        if running >= workers || waiting > 0 {
            guard waiting < queueCapacity else {
                condition.unlock()
                return nil
            }
            let ticket = nextTicket
            nextTicket += 1
            waiting += 1
            while running >= workers || ticket != serving { condition.wait() }
            waiting -= 1
            serving += 1
            condition.broadcast()   // the next in line may find another free worker
        }
        running += 1
        condition.unlock()
        defer {
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
        return work()
    }
}
