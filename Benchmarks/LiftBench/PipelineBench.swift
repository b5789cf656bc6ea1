// `lift-bench pipeline`: one photo through the whole of Lift (decode → model → mask → composite →
// PNG encode), per stage, at several thread counts, with peak memory. `Benchmarks/pipeline_peer.py`
// runs the rembg-shaped peer on the same files; see Benchmarks/RESULTS.md.
import Foundation
import Lift

/// `lift-bench pipeline FILE... [--model NAME] [--threads 1,2] [--repeat N]`: prints one JSON line
/// per file and thread count with the median milliseconds of each stage and the peak RSS.
func runPipelineBench(_ arguments: [String]) {
    var files: [String] = []
    var model: ModelName?
    var threadCounts = [1, 2]
    var repeats = 3
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        let value = index + 1 < arguments.count ? arguments[index + 1] : ""
        switch argument {
        case "--model": model = ModelName(rawValue: value); index += 1
        case "--threads": threadCounts = value.split(separator: ",").compactMap { Int($0) }; index += 1
        case "--repeat": repeats = max(1, Int(value) ?? repeats); index += 1
        default: files.append(argument)
        }
        index += 1
    }
    guard !files.isEmpty, !threadCounts.isEmpty else {
        print("usage: lift-bench pipeline FILE... [--model subject|person] [--threads 1,2] [--repeat N]")
        exit(2)
    }
    do {
        for threads in threadCounts {
            let lifter = try SubjectLifter(model: model, threads: threads)
            for file in files {
                _ = try pipelineRun(file, lifter: lifter)  // warm-up: plans the executor's buffers
                let runs = try (0..<repeats).map { _ in try pipelineRun(file, lifter: lifter) }
                let stages = ["decode", "preprocess", "inference", "mask", "composite", "encode", "total"]
                var median: [String: Double] = [:]
                for stage in stages {
                    let sorted = runs.map { $0[stage] ?? 0 }.sorted()
                    median[stage] = (sorted[sorted.count / 2] * 100).rounded() / 100
                }
                let line: [String: Any] = [
                    "pipeline": "lift (\(lifter.model.rawValue), quality \(lifter.quality.rawValue))",
                    "file": (file as NSString).lastPathComponent, "threads": threads, "ms": median,
                    "peak_rss_mib": (Double(peakResidentBytes()) / 1_048_576 * 10).rounded() / 10,
                ]
                let json = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
                print(String(decoding: json, as: UTF8.self))
            }
        }
    } catch {
        print("lift-bench pipeline: \(error)")
        exit(1)
    }
}

/// One timed pass over `file`; milliseconds per stage and `total`.
func pipelineRun(_ file: String, lifter: SubjectLifter) throws -> [String: Double] {
    var timings = StageTimings()
    var clock = Stopwatch()
    let photo = try ImageFiles.load(file, threads: lifter.threads)
    timings.decode = clock.lap()
    let analysis = try lifter.analyze(photo, timings: &timings)
    _ = clock.lap()
    let cutout = try analysis.image(for: analysis.subjects)
    timings.composite = clock.lap()
    _ = try ImageFiles.encodePNG(cutout, threads: lifter.threads)
    timings.encode = clock.lap()
    return ["decode": timings.decode, "preprocess": timings.preprocess, "inference": timings.inference,
            "mask": timings.mask, "composite": timings.composite, "encode": timings.encode, "total": timings.total]
}

/// The process's peak resident set size in bytes (`getrusage`, kilobytes on Linux).
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}
