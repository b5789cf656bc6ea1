// What `lift-bench model` and `lift-bench subject` share: running the Python peers (onnxruntime,
// Pillow), timing a Lift model against onnxruntime on one input, and Lift's per-operation profile.
import Foundation
import Lift
import LiftTensor
import TestSupport

/// The Python interpreter for tools and peers, the one place lift-bench looks for it: `$LIFT_PYTHON`
/// when set, else the repository's own environment `.venv/bin/python` (made by `Tools/setup-python.sh`;
/// found from this source file's path, so from any current directory).
/// - Throws: `PeerError` saying how to make the environment when neither is there.
func peerPython() throws -> String {
    if let chosen = ProcessInfo.processInfo.environment["LIFT_PYTHON"], !chosen.isEmpty { return chosen }
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Benchmarks/LiftBench
        .deletingLastPathComponent().deletingLastPathComponent()
    let venvPython = repository.appendingPathComponent(".venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: venvPython) else {
        throw PeerError(message: "no Python environment at \(venvPython): run Tools/setup-python.sh "
                        + "(or set $LIFT_PYTHON to an interpreter with Tools/requirements.txt installed)")
    }
    return venvPython
}

/// Runs `peerPython() arguments…` (from the current directory, the repository root) and returns its
/// standard output; standard error passes through.
/// - Throws: `PeerError` when there is no interpreter or it exits with a non-zero status.
func runPython(_ arguments: [String]) throws -> String {
    let python = try peerPython()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [python] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw PeerError(message: "\(python) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
}

/// The JSON objects a peer printed, one per line (other lines are skipped).
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// A peer that failed or printed something unexpected.
struct PeerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Median of `values` (non-empty).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Wall and calling-thread CPU milliseconds of Lift's executor and of onnxruntime on the same input.
struct RuntimeComparison {
    /// Every timed Lift run, wall milliseconds.
    var lift: [Double] = []
    /// Every timed onnxruntime run, wall milliseconds.
    var peer: [Double] = []
    /// Per round: median Lift time / median onnxruntime time.
    var ratios: [Double] = []
    /// Calling-thread CPU milliseconds per run (all of the work with one thread).
    var liftCPU: [Double] = [], peerCPU: [Double] = []
    /// Largest |Lift − onnxruntime| over the output.
    var maxDifference: Float = 0

    /// The column names of `report`'s first line.
    static let header = "threads | Lift median / min ms | ORT median / min ms | Lift/ORT median, min | Lift GFLOP/s | max |Δ| vs ORT"

    /// One table row for `threads` (Lift's GFLOP/s from `flops` per run) and, with one thread, a
    /// second line with the calling thread's CPU times (all of the work, without preemption).
    func report(threads: Int, flops: Double) -> String {
        let liftMin = lift.min() ?? 0, peerMin = peer.min() ?? 0
        var text = String(format: "%7d | %9.2f / %7.2f | %8.2f / %7.2f | %9.2f, %5.2f | %12.1f | %.2e", threads, median(lift),
                          liftMin, median(peer), peerMin, median(ratios), liftMin / peerMin, flops / median(lift) / 1e6, maxDifference)
        if threads == 1 {
            let liftCPUMin = liftCPU.min() ?? 0, peerCPUMin = peerCPU.min() ?? 0
            text += String(format: "\n  1 thread, calling thread's CPU time: Lift median / min %.2f / %.2f ms, ORT %.2f / %.2f ms, "
                           + "Lift/ORT %.2f, %.2f; Lift %.1f GFLOP/s", median(liftCPU), liftCPUMin, median(peerCPU), peerCPUMin,
                           median(liftCPU) / median(peerCPU), liftCPUMin / peerCPUMin, flops / median(liftCPU) / 1e6)
        }
        return text
    }
}

/// Times `model` on `input` against onnxruntime (`Benchmarks/model_peer.py`) running `onnx` on the
/// same values: `rounds` rounds, each `runs` Lift runs then `runs` onnxruntime runs, so both see
/// the same machine load; two untimed Lift runs first.
/// - Parameters:
///   - inputFile: `input` as raw little-endian float32 NHWC (what `model_peer.py` reads); square.
///   - peerOutput: where `model_peer.py` writes its output for the parity check.
func compareWithOnnxRuntime(_ model: Model, input: Tensor, inputFile: String, onnx: String, peerOutput: String,
                            threads: Int, runs: Int, rounds: Int) throws -> RuntimeComparison {
    precondition(input.shape.h == input.shape.w, "model_peer.py takes square inputs, not \(input.shape)")
    let output = Tensor(shape: try model.outputShape(forInput: input.shape))
    for _ in 0 ..< 2 { try model.run(input, into: output, threads: threads) }
    var result = RuntimeComparison()
    for _ in 0 ..< rounds {
        var times: [Double] = []
        for _ in 0 ..< runs {
            let start = DispatchTime.now().uptimeNanoseconds, startCPU = threadCPUSeconds() * 1e3
            try model.run(input, into: output, threads: threads)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            result.liftCPU.append(threadCPUSeconds() * 1e3 - startCPU)
        }
        let report = try runPython(["Benchmarks/model_peer.py", "--onnx", onnx, "--input", inputFile,
                                    "--size", String(input.shape.h), "--threads", String(threads), "--runs", String(runs),
                                    "--output", peerOutput])
        guard let fields = jsonLines(report).last, let peerTimes = fields["times_ms"] as? [Double], !peerTimes.isEmpty,
              let peerThreadCPU = fields["thread_cpu_ms"] as? [Double]
        else { throw PeerError(message: "model_peer.py printed no result: \(report)") }
        let reference = try Fixtures.float32s(contentsOf: URL(fileURLWithPath: peerOutput))
        result.maxDifference = max(result.maxDifference, maxAbsDifference(output.buffer, reference))
        result.lift += times
        result.peer += peerTimes
        result.peerCPU += peerThreadCPU
        result.ratios.append(median(times) / median(peerTimes))
    }
    return result
}

/// Lift's time per kind of operation, largest first: wall time, and with one thread the calling
/// thread's CPU time (all of the work, without preemption).
func printProfile(_ timings: [Model.OperationTiming], threads: Int) {
    let cpu = threads == 1
    func time(_ timing: Model.OperationTiming) -> Double { cpu ? timing.callingThreadCPUSeconds : timing.seconds }
    var byKind: [String: (seconds: Double, count: Int)] = [:]
    for timing in timings {
        byKind[timing.kind, default: (0, 0)].seconds += time(timing)
        byKind[timing.kind, default: (0, 0)].count += 1
    }
    let total = timings.reduce(0) { $0 + time($1) }
    print("profile, \(threads) thread(s), \(cpu ? "thread CPU time" : "wall time") \(String(format: "%.1f", total * 1000)) ms:")
    for (kind, entry) in byKind.sorted(by: { $0.value.seconds > $1.value.seconds }) {
        let label = kind.padding(toLength: max(kind.count, 24), withPad: " ", startingAt: 0)
        print("  " + label + String(format: " %3d× %8.2f ms %5.1f %%", entry.count, entry.seconds * 1000, entry.seconds / total * 100))
    }
}
