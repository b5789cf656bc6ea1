import Foundation
import Lift
import LiftTensor
import TestSupport

/// `lift-bench model [--size 320] [--runs 5] [--rounds 3] [--threads 1,2] [--work Benchmarks/.work] [--profile] [--onnx FILE]`:
/// U²-Net-small (random seeded weights) in Lift and in onnxruntime on the same input, same threads.
/// With `--onnx FILE` (for instance rembg's `u2netp.onnx`), that file instead: Lift imports it with
/// its own importer (`ONNXConversion`, Float32 weights) and runs it at the file's input size on a
/// seeded random input, onnxruntime runs the file itself.
///
/// The model is generated on first use by `Tools/fixtures/u2net_small.py` into the ignored work folder (never
/// into `Weights/`), as `.safetensors` for Lift and `.onnx` for onnxruntime. The peer runs in
/// `Benchmarks/model_peer.py` under `peerPython()`: `$LIFT_PYTHON`, else the repository's `.venv/bin/python`
/// (made by `Tools/setup-python.sh`).
/// Each round times `runs` Lift runs then `runs` onnxruntime runs, so both see the same machine load.
/// Prints, per thread count, median and minimum milliseconds of both, Lift / onnxruntime (median of
/// the per-round ratios, and ratio of the minimums), Lift's GFLOP/s (convolutions by the explicit
/// formula) and the max |Δ| between the two outputs. `--profile`
/// also prints Lift's time per kind of operation (one run per thread count).
func runModelBench(_ arguments: [String]) {
    var size = 320, runs = 5, rounds = 3, threads = [1, 2], work = "Benchmarks/.work", profile = false
    var onnx: String?
    var index = 0
    while index < arguments.count {
        let value = index + 1 < arguments.count ? arguments[index + 1] : ""
        switch arguments[index] {
        case "--size": size = Int(value) ?? size
        case "--runs": runs = max(Int(value) ?? runs, 1)
        case "--rounds": rounds = max(Int(value) ?? rounds, 1)
        case "--threads": threads = value.split(separator: ",").compactMap { Int($0) }
        case "--work": work = value
        case "--onnx": onnx = value
        case "--profile":
            profile = true
            index -= 1
        default:
            print("usage: lift-bench model [--size 320] [--runs 5] [--rounds 3] [--threads 1,2] [--work Benchmarks/.work] [--profile] [--onnx FILE]")
            exit(2)
        }
        index += 2
    }
    do {
        if let onnx {
            try benchmarkImportedONNX(onnx, runs: runs, rounds: rounds, threads: threads, work: work, profile: profile)
            return
        }
        try benchmarkU2NetSmall(size: size, runs: runs, rounds: rounds, threads: threads, work: work, profile: profile)
    } catch {
        print("lift-bench model: \(error)")
        exit(1)
    }
}

private func benchmarkU2NetSmall(size: Int, runs: Int, rounds: Int, threads: [Int], work: String, profile: Bool) throws {
    let prefix = "\(work)/u2net_small_\(size)"
    if !FileManager.default.fileExists(atPath: prefix + ".onnx") || !FileManager.default.fileExists(atPath: prefix + ".safetensors") {
        print("generating \(prefix).{safetensors,onnx} with Tools/fixtures/u2net_small.py …")
        _ = try runPython(["Tools/fixtures/u2net_small.py", "--size", String(size), "--out", prefix])
    }
    let model = try Model(contentsOf: URL(fileURLWithPath: prefix + ".safetensors"))
    let shape = TensorShape(n: 1, h: size, w: size, c: 3)
    let input = Tensor(shape: shape, values: try Fixtures.float32s(contentsOf: URL(fileURLWithPath: prefix + ".input.f32")))
    let flops = try model.convolutionFLOPs(forInput: shape)
    print("U²-Net-small \(size)×\(size), \(String(format: "%.2f", flops / 1e9)) GFLOP (convolutions); "
          + "\(rounds) rounds of Lift then onnxruntime, \(runs) timed runs each")
    print(RuntimeComparison.header)
    for count in threads {
        let result = try compareWithOnnxRuntime(model, input: input, inputFile: prefix + ".input.f32", onnx: prefix + ".onnx",
                                                peerOutput: "\(prefix).ort\(count).f32", threads: count, runs: runs, rounds: rounds)
        print(result.report(threads: count, flops: flops))
    }
    if profile {
        for count in threads { printProfile(try model.profile(input, threads: count), threads: count) }
    }
}

/// `--onnx FILE`: the file imported by Lift against the file in onnxruntime (see `runModelBench`).
private func benchmarkImportedONNX(_ path: String, runs: Int, rounds: Int, threads: [Int], work: String, profile: Bool) throws {
    var clock = DispatchTime.now().uptimeNanoseconds
    let conversion = try ONNXConversion(contentsOf: URL(fileURLWithPath: path))
    let model = try conversion.model()
    let importMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e6
    let shape = TensorShape(n: 1, h: conversion.spec.height, w: conversion.spec.width, c: 3)
    // A seeded input in the range rembg's normalisation gives (about -2…2.6).
    var generator = SeededGenerator(seed: 1)
    let values = (0 ..< shape.count).map { _ in Float.random(in: -2.0 ... 2.6, using: &generator) }
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let stem = "\(work)/" + URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    let inputFile = stem + ".input.f32"
    try Data(values.withUnsafeBufferPointer { Data(buffer: $0) }).write(to: URL(fileURLWithPath: inputFile))
    clock = DispatchTime.now().uptimeNanoseconds
    let input = Tensor(shape: shape, values: values)
    let flops = try model.convolutionFLOPs(forInput: shape)
    print("\(path) imported in \(String(format: "%.0f", importMilliseconds)) ms: \(conversion.imported.nodeCount) Lift nodes, "
          + "\(conversion.imported.foldedBatchNormalizations) BatchNormalizations folded, \(conversion.parameterCount) parameters; "
          + "\(shape.h)×\(shape.w), \(String(format: "%.2f", flops / 1e9)) GFLOP (convolutions); "
          + "\(rounds) rounds of Lift then onnxruntime, \(runs) timed runs each")
    print(RuntimeComparison.header)
    for count in threads {
        let result = try compareWithOnnxRuntime(model, input: input, inputFile: inputFile, onnx: path,
                                                peerOutput: "\(stem).ort\(count).f32", threads: count, runs: runs, rounds: rounds)
        print(result.report(threads: count, flops: flops))
    }
    if profile {
        for count in threads { printProfile(try model.profile(input, threads: count), threads: count) }
    }
}
