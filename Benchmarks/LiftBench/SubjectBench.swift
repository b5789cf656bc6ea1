// `lift-bench subject`: the shipped subject model in Lift and in onnxruntime (an ONNX export of the
// same weights, `Tools/conversion/export_subject_onnx.py`) in one run: the model alone on the same preprocessed
// tensor, then the whole per-image pipeline against the rembg-shaped peer `Benchmarks/subject_peer.py`.
// See Benchmarks/RESULTS.md, "Subject model latency".
import Foundation
import Lift
import LiftTensor

/// `lift-bench subject FILE... [--threads 1,2] [--runs 20] [--rounds 3] [--repeat 3] [--work Benchmarks/.work] [--profile]`:
/// exports `Weights/subject.safetensors` to `WORK/subject.onnx` (printing onnxruntime's max |Δ| to
/// PyTorch), times the model alone (Lift's executor vs onnxruntime on the first file preprocessed by
/// Lift; `rounds` × `runs` runs each, interleaved), then per thread count and file the whole
/// pipeline (`lift FILE` at the default quality, without the file write) against the peer, median
/// and minimum milliseconds per image of `repeat` runs after a warm-up. `--profile` adds Lift's time
/// per kind of operation for the model alone (the profiled run with the median total of 11).
func runSubjectBench(_ arguments: [String]) {
    var options = SubjectBenchOptions()
    var index = 0
    while index < arguments.count {
        let value = index + 1 < arguments.count ? arguments[index + 1] : ""
        switch arguments[index] {
        case "--threads": options.threads = value.split(separator: ",").compactMap { Int($0) }
        case "--runs": options.runs = max(Int(value) ?? options.runs, 1)
        case "--rounds": options.rounds = max(Int(value) ?? options.rounds, 1)
        case "--repeat": options.repeats = max(Int(value) ?? options.repeats, 1)
        case "--work": options.work = value
        case "--profile":
            options.profile = true
            index -= 1
        default:
            options.files.append(arguments[index])
            index -= 1
        }
        index += 2
    }
    guard !options.files.isEmpty, !options.threads.isEmpty else {
        print("usage: lift-bench subject FILE... [--threads 1,2] [--runs 20] [--rounds 3] [--repeat 3] [--work Benchmarks/.work] [--profile]")
        exit(2)
    }
    do {
        let weights = try ModelCatalog.url(for: .subject).path
        let onnx = options.work + "/subject.onnx"
        // Exported afresh each run, so the ONNX file always holds the weights being measured.
        print(try runPython(["Tools/conversion/export_subject_onnx.py", "--weights", weights, "--out", onnx]), terminator: "")
        try benchmarkModelAlone(weights: weights, onnx: onnx, options: options)
        try benchmarkPipelines(weights: weights, onnx: onnx, options: options)
    } catch {
        print("lift-bench subject: \(error)")
        exit(1)
    }
}

private struct SubjectBenchOptions {
    var files: [String] = []
    var threads = [1, 2]
    var runs = 20, rounds = 3, repeats = 3
    var work = "Benchmarks/.work"
    var profile = false
}

/// Lift's executor vs onnxruntime on the first file, preprocessed once by Lift (`Preprocess`, as
/// `lift` does) and handed to both as the same float32 tensor.
private func benchmarkModelAlone(weights: String, onnx: String, options: SubjectBenchOptions) throws {
    let model = try Model(contentsOf: URL(fileURLWithPath: weights))
    guard let specText = model.metadata["lift.input"] else { throw PeerError(message: "\(weights) has no lift.input") }
    let spec = try InputSpec(json: specText)
    let input = Tensor(n: 1, h: spec.height, w: spec.width, c: 3)
    try Preprocess(spec: spec).write(try ImageFiles.load(options.files[0]), into: input.buffer)
    let inputFile = options.work + "/subject.input.f32"
    try Data(buffer: UnsafeBufferPointer(input.buffer)).write(to: URL(fileURLWithPath: inputFile))
    let flops = try model.convolutionFLOPs(forInput: input.shape)
    print("\nmodel alone: subject \(spec.height)×\(spec.width) on \((options.files[0] as NSString).lastPathComponent) "
          + "(preprocessed by Lift), \(String(format: "%.2f", flops / 1e9)) GFLOP (convolutions); "
          + "\(options.rounds) rounds of Lift then onnxruntime, \(options.runs) timed runs each")
    print(RuntimeComparison.header)
    for count in options.threads {
        let result = try compareWithOnnxRuntime(model, input: input, inputFile: inputFile, onnx: onnx,
                                                peerOutput: "\(options.work)/subject.ort\(count).f32", threads: count,
                                                runs: options.runs, rounds: options.rounds)
        print(result.report(threads: count, flops: flops))
    }
    if model.outputNames.count > 1 {
        // A file with instance heads: `run` skips them; `runAll` (`--instances-by model`) runs them.
        print("\nLift alone, the mask (`run`) vs every output (`runAll`: + \(model.outputNames.dropFirst().joined(separator: ", "))), "
              + "median ms of \(options.rounds) rounds × \(options.runs) runs each, interleaved:")
        for count in options.threads {
            var mask: [Double] = [], all: [Double] = []
            for _ in 0 ..< options.rounds {
                for _ in 0 ..< options.runs {
                    let start = wallSeconds()
                    _ = try model.run(input, threads: count)
                    mask.append(wallSeconds() - start)
                }
                for _ in 0 ..< options.runs {
                    let start = wallSeconds()
                    _ = try model.runAll(input, threads: count)
                    all.append(wallSeconds() - start)
                }
            }
            print(String(format: "%d thread(s): run %.2f ms, runAll %.2f ms (%.2f×)", count, median(mask) * 1e3,
                         median(all) * 1e3, median(all) / median(mask)))
        }
    }
    if options.profile {
        for count in options.threads {
            let runs = try (0 ..< 11).map { _ in try model.profile(input, threads: count) }
                .sorted { $0.reduce(0) { $0 + $1.seconds } < $1.reduce(0) { $0 + $1.seconds } }
            printProfile(runs[runs.count / 2], threads: count)
        }
    }
}

/// Per thread count and file: the file through Lift's pipeline, then right after through the peer,
/// so that both see the same machine load.
private func benchmarkPipelines(weights: String, onnx: String, options: SubjectBenchOptions) throws {
    let stages = ["decode", "preprocess", "inference", "mask", "composite", "encode"]
    print("\nwhole pipeline, milliseconds per image (median / min of \(options.repeats) after a warm-up):")
    print("file | threads | Lift median / min | peer median / min | peer/Lift median, min")
    for count in options.threads {
        let lifter = try SubjectLifter(model: .subject, threads: count)
        for file in options.files {
            _ = try pipelineRun(file, lifter: lifter)  // warm-up: plans the executor's buffers
            let runs = try (0 ..< options.repeats).map { _ in try pipelineRun(file, lifter: lifter) }
            let peer = try runPython(["Benchmarks/subject_peer.py", file, "--onnx", onnx, "--weights", weights,
                                      "--threads", String(count), "--repeat", String(options.repeats)])
            guard let fields = jsonLines(peer).last, let peerTotals = fields["totals_ms"] as? [Double], !peerTotals.isEmpty,
                  let peerStages = fields["ms"] as? [String: Double]
            else { throw PeerError(message: "subject_peer.py printed no timings for \(file): \(peer)") }
            let liftTotals = runs.map { $0["total"] ?? 0 }
            let liftMin = liftTotals.min() ?? 0, peerMin = peerTotals.min() ?? 0
            print(String(format: "%@ | %d | %.1f / %.1f | %.1f / %.1f | %.2f, %.2f", (file as NSString).lastPathComponent, count,
                         median(liftTotals), liftMin, median(peerTotals), peerMin, median(peerTotals) / median(liftTotals),
                         peerMin / liftMin))
            func stageText(_ value: (String) -> Double) -> String {
                stages.map { "\($0) \(String(format: "%.1f", value($0)))" }.joined(separator: ", ")
            }
            print("  stage medians, Lift: " + stageText { stage in median(runs.map { $0[stage] ?? 0 }) })
            print("  stage medians, peer: " + stageText { stage in peerStages[stage] ?? 0 })
        }
    }
}
