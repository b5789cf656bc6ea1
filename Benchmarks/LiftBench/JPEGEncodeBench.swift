import Foundation
import LiftImage

/// `lift-bench jpeg-encode FILE.png... [--quality 75,90] [--subsampling 4:2:0,4:4:4] [--standard-tables]
/// [--gray] [--runs N] [--threads T] [--write]`: decodes each PNG (RGBA, or grey with `--gray`), then
/// encodes it with `JPEGEncoder` `N` times (default 5) on `T` threads (default 1, as Pillow encodes) for
/// every quality and subsampling, and prints one JSON line per encode: bytes, best and median wall
/// seconds, MB/s of input pixels counted as RGB (width x height x 3, or x 1 for grey, what Pillow
/// encodes from), and the median CPU time of the process (all threads). With `--write`, the file goes
/// to `FILE.lift-qQ-SS.jpg` (`SS` 420, 444 or gray) for `Benchmarks/jpeg_encode_peer.py` to compare.
func runJPEGEncodeBench(_ arguments: [String]) {
    var runs = 5, threads = 1
    var qualities = [75, 90]
    var subsamplings: [JPEGEncoder.Subsampling] = [.yuv420, .yuv444]
    var gray = false, write = false, standard = false
    var files: [String] = []
    var index = 0
    while index < arguments.count {
        let argument = arguments[index], value = index + 1 < arguments.count ? arguments[index + 1] : ""
        switch argument {
        case "--runs": runs = max(1, Int(value) ?? runs); index += 1
        case "--threads": threads = max(1, Int(value) ?? threads); index += 1
        case "--quality": qualities = value.split(separator: ",").compactMap { Int($0) }; index += 1
        case "--subsampling": subsamplings = value.split(separator: ",").compactMap { JPEGEncoder.Subsampling(rawValue: String($0)) }; index += 1
        case "--gray": gray = true
        case "--write": write = true
        case "--standard-tables": standard = true
        default: files.append(argument)
        }
        index += 1
    }
    for file in files {
        guard let data = FileManager.default.contents(atPath: file) else {
            print("{\"file\": \"\(file)\", \"error\": \"cannot read\"}")
            continue
        }
        let encodeOnce: (JPEGEncoder.Options) throws -> [UInt8]
        let sampleBytes: Int
        do {
            if gray {
                let image = try PNGDecoder.decodeGray([UInt8](data)).image
                encodeOnce = { try JPEGEncoder.encode(image, options: $0) }
                sampleBytes = image.width * image.height
            } else {
                let image = try PNGDecoder.decode([UInt8](data)).image
                encodeOnce = { try JPEGEncoder.encode(image, options: $0) }
                sampleBytes = image.pixelCount * 3
            }
        } catch {
            print("{\"file\": \"\(file)\", \"error\": \"\(error)\"}")
            continue
        }
        for quality in qualities {
            for subsampling in gray ? [.yuv444] : subsamplings {
                let options = JPEGEncoder.Options(quality: quality, subsampling: subsampling,
                                                  huffmanTables: standard ? .standard : .optimized, threads: threads)
                var times: [Double] = [], cpuTimes: [Double] = []
                var encoded: [UInt8] = []
                do {
                    for _ in 0 ..< runs {
                        let cpuStart = processCPUSeconds()
                        let start = DispatchTime.now().uptimeNanoseconds
                        encoded = try encodeOnce(options)
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                        cpuTimes.append(processCPUSeconds() - cpuStart)
                    }
                } catch {
                    print("{\"file\": \"\(file)\", \"error\": \"\(error)\"}")
                    continue
                }
                let tag = gray ? "gray" : subsampling.rawValue.replacingOccurrences(of: ":", with: "")
                if write {
                    _ = FileManager.default.createFile(atPath: "\(file).lift-q\(quality)-\(tag).jpg", contents: Data(encoded))
                }
                times.sort()
                cpuTimes.sort()
                let median = times[times.count / 2]
                print("{\"file\": \"\(file)\", \"quality\": \(quality), \"subsampling\": \"\(tag)\", \"bytes\": \(encoded.count), "
                      + "\"runs\": \(runs), \"best_s\": \(times[0]), \"median_s\": \(median), "
                      + "\"mb_per_s\": \(Double(sampleBytes) / 1e6 / median), \"cpu_median_s\": \(cpuTimes[cpuTimes.count / 2]), "
                      + "\"threads\": \(threads)}")
            }
        }
    }
}
