import Foundation
import LiftImage

/// `lift-bench jpeg FILE... [--runs N] [--threads T] [--dump]`: decodes each JPEG file `N` times
/// (default 5) with `JPEGDecoder` on `T` threads (default 1, as Pillow decodes) and prints one JSON
/// line per file: best and median seconds and MB/s of decoded pixels counted as RGB (width x height
/// x 3 bytes, the size Pillow's decode produces), plus the median CPU time of the calling thread,
/// which is steadier than wall time on a shared machine (with T = 1 it is all the work).
/// With `--dump`, also writes the decoded pixels as raw RGB to `FILE.lift.rgb` for parity checks.
/// `Benchmarks/jpeg_peer.py` makes the 12 MP files, times Pillow on them and calls this.
func runJPEGBench(_ arguments: [String]) {
    var runs = 5
    var threads = 1
    var dump = false
    var files: [String] = []
    var index = 0
    while index < arguments.count {
        if arguments[index] == "--dump" {
            dump = true
            index += 1
        } else if arguments[index] == "--threads", index + 1 < arguments.count {
            threads = max(1, Int(arguments[index + 1]) ?? threads)
            index += 2
        } else if arguments[index] == "--runs", index + 1 < arguments.count {
            runs = Int(arguments[index + 1]) ?? runs
            index += 2
        } else {
            files.append(arguments[index])
            index += 1
        }
    }
    for file in files {
        guard let data = FileManager.default.contents(atPath: file) else {
            print("{\"file\": \"\(file)\", \"error\": \"cannot read\"}")
            continue
        }
        let bytes = [UInt8](data)
        var times: [Double] = []
        var cpuTimes: [Double] = []
        var pixels = 0
        var last: RGBAImage?
        for _ in 0 ..< max(runs, 1) {
            let cpuStart = threadCPUSeconds()
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let decoded = try JPEGDecoder.decode(bytes, options: .init(threads: threads))
                pixels = decoded.image.pixelCount
                last = decoded.image
            } catch {
                print("{\"file\": \"\(file)\", \"error\": \"\(error)\"}")
                break
            }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            cpuTimes.append(threadCPUSeconds() - cpuStart)
        }
        guard !times.isEmpty else { continue }
        if dump, let last {
            var rgb = [UInt8](repeating: 0, count: last.pixelCount * 3)
            for p in 0 ..< last.pixelCount {
                rgb[p * 3] = last.pixels[p * 4]
                rgb[p * 3 + 1] = last.pixels[p * 4 + 1]
                rgb[p * 3 + 2] = last.pixels[p * 4 + 2]
            }
            _ = FileManager.default.createFile(atPath: file + ".lift.rgb", contents: Data(rgb))
        }
        times.sort()
        cpuTimes.sort()
        let median = times[times.count / 2], best = times[0]
        let megabytes = Double(pixels * 3) / 1e6
        print("{\"file\": \"\(file)\", \"runs\": \(times.count), \"best_s\": \(best), \"median_s\": \(median), "
              + "\"mb_per_s\": \(megabytes / median), \"cpu_median_s\": \(cpuTimes[cpuTimes.count / 2]), \"threads\": \(threads)}")
    }
}

