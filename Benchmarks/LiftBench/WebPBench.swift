import Foundation
import Lift

/// `lift-bench webp decode FILE.webp... [--runs N] [--threads T] [--dump]` and
/// `lift-bench webp encode FILE... [--runs N] [--effort E] [--out DIR]`, run through
/// `Benchmarks/webp_peer.py`, which times dwebp, Pillow and cwebp on the same files in the same run.
///
/// `decode` decodes each file `N` times (default 5) on `T` threads (default 1) and prints one JSON line
/// per file: best and median CPU seconds of the calling thread (with one thread, all the work) and
/// wall seconds, and MB/s of decoded pixels counted as RGBA (width × height × 4, what dwebp -pam and
/// Pillow's RGBA decode produce). `--dump` writes the pixels to `FILE.lift.rgba` for parity checks.
///
/// `encode` decodes each image (PNG, JPEG or WebP), encodes it as lossless WebP with `WebPEncoder`
/// (one thread) `N` times and prints best and median CPU seconds, MB/s of RGBA input, the file size,
/// and the size of Lift's PNG of the same pixels at the cut-out default (zlib level 4, colour-type
/// reduction); it checks that the file decodes back to the pixels (transparent RGB zeroed) and with
/// `--out DIR` writes it as DIR/NAME.lift.webp for the script's checks with dwebp and Pillow.
func runWebPBench(_ arguments: [String]) {
    var runs = 5, threads = 1, effort = WebPEncoder.Options().effort
    var dump = false
    var output: String?
    var files: [String] = []
    var index = 1
    while index < arguments.count {
        let argument = arguments[index]
        let value = index + 1 < arguments.count ? arguments[index + 1] : ""
        switch argument {
        case "--dump": dump = true
        case "--runs": runs = max(1, Int(value) ?? runs); index += 1
        case "--threads": threads = max(1, Int(value) ?? threads); index += 1
        case "--effort": effort = Int(value) ?? effort; index += 1
        case "--out": output = value; index += 1
        default: files.append(argument)
        }
        index += 1
    }
    switch arguments.first {
    case "decode": for file in files { benchDecode(file, runs: runs, threads: threads, dump: dump) }
    case "encode": for file in files { benchEncode(file, runs: runs, effort: effort, output: output) }
    default: print("usage: lift-bench webp decode|encode FILE... [--runs N] [--threads T] [--dump] [--effort E] [--out DIR]")
    }
}

/// Times `body` `runs` times: sorted calling-thread CPU seconds and sorted wall seconds.
private func measure(_ runs: Int, _ body: () throws -> Void) rethrows -> (cpu: [Double], wall: [Double]) {
    var cpu: [Double] = [], wall: [Double] = []
    for _ in 0 ..< runs {
        let cpuStart = threadCPUSeconds(), wallStart = wallSeconds()
        try body()
        cpu.append(threadCPUSeconds() - cpuStart)
        wall.append(wallSeconds() - wallStart)
    }
    return (cpu.sorted(), wall.sorted())
}

private func benchDecode(_ file: String, runs: Int, threads: Int, dump: Bool) {
    do {
        let bytes = try ImageIO.readFile(file)
        var image = RGBAImage(width: 0, height: 0)
        let times = try measure(runs) {
            image = try WebPDecoder.decode(bytes, options: .init(applyOrientation: false, threads: threads)).image
        }
        if dump { try Data(image.pixels).write(to: URL(fileURLWithPath: file + ".lift.rgba")) }
        let megabytes = Double(image.pixelCount * 4) / 1e6
        print("{\"file\": \"\(file)\", \"op\": \"decode\", \"width\": \(image.width), \"height\": \(image.height), "
              + "\"cpu_best_s\": \(times.cpu[0]), \"cpu_median_s\": \(times.cpu[runs / 2]), \"wall_median_s\": \(times.wall[runs / 2]), "
              + "\"mb_per_s\": \(megabytes / times.cpu[runs / 2]), \"threads\": \(threads)}")
    } catch {
        print("{\"file\": \"\(file)\", \"op\": \"decode\", \"error\": \"\(error)\"}")
    }
}

private func benchEncode(_ file: String, runs: Int, effort: Int, output: String?) {
    do {
        let image = try ImageIO.decode(try ImageIO.readFile(file), applyOrientation: false)
        var encoded: [UInt8] = []
        let times = try measure(runs) {
            encoded = try WebPEncoder.encode(image, options: .init(effort: effort, threads: 1))
        }
        var expected = image
        for i in Swift.stride(from: 0, to: expected.pixels.count, by: 4) where expected.pixels[i + 3] == 0 {
            expected.pixels[i] = 0
            expected.pixels[i + 1] = 0
            expected.pixels[i + 2] = 0
        }
        let roundTrip = try WebPDecoder.decode(encoded, options: .init(applyOrientation: false)).image == expected
        let png = try ImageFiles.encodePNG(image, threads: 1)
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        if let output { try Data(encoded).write(to: URL(fileURLWithPath: output + "/" + name + ".lift.webp")) }
        let megabytes = Double(image.pixelCount * 4) / 1e6
        print("{\"file\": \"\(file)\", \"op\": \"encode\", \"width\": \(image.width), \"height\": \(image.height), "
              + "\"bytes\": \(encoded.count), \"png_bytes\": \(png.count), \"round_trip\": \(roundTrip), \"effort\": \(effort), "
              + "\"cpu_best_s\": \(times.cpu[0]), \"cpu_median_s\": \(times.cpu[runs / 2]), \"mb_per_s\": \(megabytes / times.cpu[runs / 2])}")
    } catch {
        print("{\"file\": \"\(file)\", \"op\": \"encode\", \"error\": \"\(error)\"}")
    }
}
