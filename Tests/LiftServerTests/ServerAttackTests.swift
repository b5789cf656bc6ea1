import Foundation
import Lift
import LiftServer
import Synchronization
import TestSupport
import Testing

/// The server attacks of an adversarial trial, replayed in process: heads that announce bodies they
/// never send, one client holding every upload's room, stalled uploads, connection floods, a thread
/// limit, photos that need the memory others hold, and malformed forms. (`Benchmarks/attack.py`
/// replays them against `lift serve` with signals and address-space caps.)
@Suite(.serialized) struct ServerAttackTests {
    private let head100k = "POST /api/analyze HTTP/1.1\r\nHost: t\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n"
    @Test func aPhotoWaitsForTheMemoryOthersHoldThenIsRefused() throws {
        let server = try TestServer {
            $0.limits.maxMemoryBytes = 400_000_000  // one small photo (336 MB estimated) at a time
            $0.memoryPatience = .milliseconds(300)
        }
        defer { server.stop() }
        let held = try #require(SharedMemoryBudget.shared.reserve(200_000_000, of: 400_000_000))
        let refused = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey())
        #expect(refused.status == 503 && refused.text.contains("memory budget"), "\(refused.text)")
        held.release()
        // Other suites' photos share the process's budget: room comes once theirs are done.
        var served = 0
        for _ in 0 ..< 20 where served != 200 {
            served = try URLSessionClient.send(server.base + "/api/analyze", method: "POST", body: try ServerPhotos.flatGrey()).status
        }
        #expect(served == 200)
    }
}
