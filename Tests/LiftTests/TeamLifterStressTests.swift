import Foundation
import Lift
import Synchronization
import Testing
import TestSupport

// Off by default: `LIFT_STRESS_TESTS=1 swift test -c release --filter TeamLifterStress`
// (`LIFT_STRESS_ROUNDS=N` repeats the runs N times over).

/// True when the stress tests were asked for.
private let stressTestsEnabled = ProcessInfo.processInfo.environment["LIFT_STRESS_TESTS"] == "1"
/// How many times over the stress test repeats its runs.
private let stressRounds = max(1, Int(ProcessInfo.processInfo.environment["LIFT_STRESS_ROUNDS"] ?? "") ?? 1)

@Suite("Quality passes side by side, each in a team (LIFT_STRESS_TESTS=1)", .enabled(if: stressTestsEnabled, "set LIFT_STRESS_TESTS=1"))
struct TeamLifterStressTests {
    /// With 4 threads, `balanced` and `accurate` run two passes side by side, each model run in a
    /// team of 2: two teams at once inside one `forEach`, here from two threads at once (four teams).
    @Test(arguments: [Quality.balanced, .accurate])
    func passesInConcurrentTeamsGiveTheOneThreadMap(quality: Quality) throws {
        let photo = try QualityPassesTests.astronaut()
        let expected = try SubjectLifter(model: .subject, quality: quality, threads: 1).probabilityMap(for: photo)
            .values.map(\.bitPattern)
        let lifters = try (0 ..< 2).map { _ in try SubjectLifter(model: .subject, quality: quality, threads: 4) }
        let mismatches = Atomic<Int>(0), failures = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        for lane in 0 ..< 2 {
            Thread {
                for _ in 0 ..< 5 * stressRounds {
                    do {
                        let map = try lifters[lane].probabilityMap(for: photo)
                        if map.values.map(\.bitPattern) != expected { mismatches.add(1, ordering: .relaxed) }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                done.signal()
            }.start()
        }
        done.wait()
        done.wait()
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }
}
