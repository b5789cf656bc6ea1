import Foundation
import LiftModel
import LiftTensor
import Synchronization
import TestSupport
import Testing

// Off by default: `LIFT_STRESS_TESTS=1 swift test -c release --filter TeamModelStress`
// (`LIFT_STRESS_ROUNDS=N` repeats the runs N times over).

/// True when the stress tests were asked for.
private let stressTestsEnabled = ProcessInfo.processInfo.environment["LIFT_STRESS_TESTS"] == "1"
/// How many times over the stress test repeats its runs.
private let stressRounds = max(1, Int(ProcessInfo.processInfo.environment["LIFT_STRESS_ROUNDS"] ?? "") ?? 1)

@Suite("Subject model under concurrent teams (LIFT_STRESS_TESTS=1)", .enabled(if: stressTestsEnabled, "set LIFT_STRESS_TESTS=1"))
struct TeamModelStressTests {
    @Test("Two threads each running their own subject model at 2 threads match the 1-thread output bit for bit")
    func subjectModelOnTwoConcurrentTeams() throws {
        let url = try ModelCatalog.url(for: .subject)
        let inputs = try SubjectCase.all().map { fixture in
            Tensor(shape: TensorShape(n: fixture.input[0], h: fixture.input[1], w: fixture.input[2], c: fixture.input[3]),
                   values: try Fixtures.float32s("subject/\(fixture.name).input.f32"))
        }
        let reference = try Model(contentsOf: url)
        let expected = try inputs.map { try reference.run($0, threads: 1).toArray().map(\.bitPattern) }
        // Each thread has a model copy of its own (a Model runs one input at a time), plus both
        // threads share `reference`, whose lock makes them take turns on it.
        let copies = try (0 ..< 2).map { _ in try Model(contentsOf: url) }
        let mismatches = Atomic<Int>(0), failures = Atomic<Int>(0), runs = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        for lane in 0 ..< 2 {
            let thread = Thread {
                for round in 0 ..< 6 * stressRounds {
                    for (k, input) in inputs.enumerated() {
                        let model = round % 3 == 2 ? reference : copies[lane]
                        do {
                            let output = try model.run(input, threads: 2).toArray().map(\.bitPattern)
                            if output != expected[k] { mismatches.add(1, ordering: .relaxed) }
                        } catch {
                            failures.add(1, ordering: .relaxed)
                        }
                        runs.add(1, ordering: .relaxed)
                    }
                }
                done.signal()
            }
            thread.start()
        }
        done.wait()
        done.wait()
        print("team model stress: \(runs.load(ordering: .relaxed)) runs, \(mismatches.load(ordering: .relaxed)) mismatches")
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }
}
