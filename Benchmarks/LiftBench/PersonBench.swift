import Foundation
import Lift
import LiftTensor

/// `lift-bench person [--runs N] [--warmup N] [--profile]`: latency of the person models (general 256×256 and
/// landscape 144×256) on the committed astronaut inputs, 1 and 2 threads, plus the preprocessing of
/// a 12-megapixel photo (MediaPipe's warp and the subject model's area resize). The peer is `Benchmarks/person_peer.py` (TFLite/XNNPACK on
/// the same inputs); run both in one go, as `Benchmarks/RESULTS.md` says. `--profile` adds the ten
/// slowest operations and totals per kind of operation (best of 20 profiled runs each, 1 thread).
func runPersonBench(_ arguments: [String]) throws {
    let runs = intOption("--runs", in: arguments) ?? 200
    let warmup = intOption("--warmup", in: arguments) ?? 20
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/person")
    for (name, fixture) in [(ModelName.person, "astronaut"), (.personLandscape, "astronaut-wide")] {
        let model = try Model(contentsOf: try ModelCatalog.url(for: name))
        guard let specText = model.metadata["lift.input"] else { throw BenchError.missing("lift.input in \(name.fileName)") }
        let spec = try InputSpec(json: specText)
        let rgb = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("\(fixture).rgb")))
        let input = Tensor(n: 1, h: spec.height, w: spec.width, c: 3)
        Preprocess(spec: spec).normalize(rgb: rgb, into: input.buffer)
        let output = Tensor(shape: try model.outputShape(forInput: input.shape))
        for threads in [1, 2] {
            let times = try measure(runs: runs, warmup: warmup) { try model.run(input, into: output, threads: threads) }
            report("lift \(name.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)) threads \(threads)", times, runs)
        }
        if arguments.contains("--profile") { try printSlowestOperations(model, input) }
    }
    // Preprocessing a 4032×3024 photo: the person models' warp reads only the sampled pixels, the
    // subject model's area resize reads them all.
    let photo = RGBAImage(width: 4032, height: 3024, fill: (90, 140, 200, 255))
    for resize in [InputSpec.ResizePolicy.stretch, .area] {
        let preprocess = Preprocess(spec: try InputSpec(height: 256, width: 256, resize: resize))
        var tensor = [Float](repeating: 0, count: preprocess.tensorCount)
        for threads in [1, 2] {
            let times = try measure(runs: runs, warmup: warmup) {
                try tensor.withUnsafeMutableBufferPointer { try preprocess.write(photo, into: $0, threads: threads) }
            }
            report("lift preprocess \(resize.rawValue) 4032x3024->256x256 threads \(threads)", times, runs)
        }
    }
}

/// The ten operations with the largest best-of-20 time, 1 thread.
private func printSlowestOperations(_ model: Model, _ input: Tensor) throws {
    var best: [Double] = []
    var timings: [Model.OperationTiming] = []
    for _ in 0 ..< 20 {
        timings = try model.profile(input, threads: 1)
        best = best.isEmpty ? timings.map(\.seconds) : zip(best, timings).map { min($0, $1.seconds) }
    }
    let total = best.reduce(0, +)
    print("  slowest operations (sum of bests \(String(format: "%.2f", total * 1000)) ms):")
    for (timing, seconds) in zip(timings, best).sorted(by: { $0.1 > $1.1 }).prefix(10) {
        print("    \(timing.name) \(timing.kind) \(timing.shape): \(String(format: "%.3f", seconds * 1000)) ms")
    }
    // Totals by kind of operation (the kind without its channel counts), largest first.
    var byKind: [String: (seconds: Double, count: Int)] = [:]
    for (timing, seconds) in zip(timings, best) {
        let kind = timing.kind.split(separator: " ").filter { token in !token.contains("→") && !(token.hasPrefix("g") && token.dropFirst().allSatisfy(\.isNumber)) }.joined(separator: " ")
        byKind[kind, default: (0, 0)].seconds += seconds
        byKind[kind, default: (0, 0)].count += 1
    }
    print("  by kind: " + byKind.sorted { $0.value.seconds > $1.value.seconds }
        .map { "\($0.key) ×\($0.value.count) \(String(format: "%.3f", $0.value.seconds * 1000))" }.joined(separator: ", ") + " ms")
}

private enum BenchError: Error { case missing(String) }

private func intOption(_ name: String, in arguments: [String]) -> Int? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return Int(arguments[index + 1])
}

/// Milliseconds of each of `runs` calls after `warmup` unmeasured ones.
private func measure(runs: Int, warmup: Int, _ body: () throws -> Void) throws -> [Double] {
    var times: [Double] = []
    for i in 0 ..< warmup + runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        if i >= warmup { times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
    }
    return times.sorted()
}

private func report(_ label: String, _ sortedTimes: [Double], _ runs: Int) {
    let median = sortedTimes[sortedTimes.count / 2], best = sortedTimes[0]
    print("\(label): median \(String(format: "%7.3f", median)) ms  best \(String(format: "%7.3f", best)) ms  (\(runs) runs)")
}
