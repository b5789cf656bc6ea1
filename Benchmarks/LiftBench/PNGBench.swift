import Foundation
import Lift

/// `lift-bench png DIR [REPEATS] [--compressors-only]`: the PNG encoder's compressors compared on the
/// cut-outs and images that `Benchmarks/png_peer.py` writes to DIR (`runCompressorComparison`), then
/// (unless `--compressors-only`) decode and encode speed of the PNG codec on photo-12mp.png,
/// rgba-1080p.png and mask-4k.png, which the script also runs through Pillow in the same run. Prints one
/// line per measurement: `png OP NAME WxHxC best_ms=... MBps=... [bytes=...]`, MB/s of raw 8-bit source
/// pixels (W*H*C / 1e6 / s).
func runPNGBench(_ arguments: [String]) {
    guard let directory = arguments.first else {
        print("usage: lift-bench png DIR [REPEATS]   (DIR written by Benchmarks/png_peer.py)")
        return
    }
    let repeats = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
    runCompressorComparison(directory: directory, repeats: repeats)
    if arguments.contains("--compressors-only") { return }
    for (name, layout) in [("photo-12mp", PNGSamples.Layout.rgb), ("rgba-1080p", .rgba), ("mask-4k", .gray)] {
        let path = directory + "/" + name + ".png"
        guard let bytes = try? ImageIO.readFile(path) else {
            print("png skip \(name): cannot read \(path)")
            continue
        }
        do {
            var decoded = try PNGDecoder.decode(bytes).image
            let rawBytes = Double(decoded.pixelCount * layout.channels)
            let decodeSeconds = try bestOf(repeats) { decoded = try PNGDecoder.decode(bytes).image }
            report("decode", name, decoded, layout, seconds: decodeSeconds, rawBytes: rawBytes, size: nil)
            if layout == .gray {
                // Masks read as masks: one byte per pixel out, as Pillow's "L" mode.
                let graySeconds = try bestOf(repeats) { _ = try PNGDecoder.decodeGray(bytes) }
                report("decode-gray", name, decoded, layout, seconds: graySeconds, rawBytes: rawBytes, size: nil)
            }
            let samples = PNGSamples(width: decoded.width, height: decoded.height, layout: layout,
                                     storage: .eight(dropChannels(decoded.pixels, to: layout)))
            for (label, var options) in [("encode", PNGEncoder.Options.standard), ("encode-fast", .fast)] {
                options.threads = 1
                var png: [UInt8] = []
                let seconds = try bestOf(repeats) { png = try PNGEncoder.encode(samples, options: options) }
                let check = try PNGDecoder.decode(png).image
                precondition(check == decoded, "the encoded file decodes to other pixels")
                report(label, name, decoded, layout, seconds: seconds, rawBytes: rawBytes, size: png.count)
                // The encoder deflates 256 KiB segments in parallel: wall time at 1 and 2 threads, same bytes.
                var wall: [Double] = []
                for threads in [1, 2] {
                    options.threads = threads
                    var threaded: [UInt8] = []
                    wall.append(try bestOf(repeats, clock: wallSeconds) { threaded = try PNGEncoder.encode(samples, options: options) })
                    precondition(threaded == png, "the file depends on the thread count")
                    report(label + "-wall-\(threads)t", name, decoded, layout, seconds: wall[threads - 1], rawBytes: rawBytes, size: nil)
                }
                print("png \(label)-scaling \(name) 2t/1t=\(String(format: "%.2f", wall[0] / wall[1]))")
            }
        } catch {
            print("png error \(name): \(error)")
        }
    }
}

/// The fastest of `repeats` runs of `body`, in seconds of `clock`: by default this process's CPU time
/// (the machine is shared, so CPU time is steadier than wall time; compared with Pillow, whose codec
/// is single-threaded, Lift's runs with one thread too).
private func bestOf(_ repeats: Int, clock: () -> Double = processCPUSeconds, _ body: () throws -> Void) throws -> Double {
    var best = Double.infinity
    for _ in 0..<max(1, repeats) {
        let start = clock()
        try body()
        best = min(best, clock() - start)
    }
    return best
}

/// RGBA8 pixels reduced to the first channels of `layout` (grey takes R, RGB drops A).
private func dropChannels(_ rgba: [UInt8], to layout: PNGSamples.Layout) -> [UInt8] {
    let keep: [Int]
    switch layout {
    case .rgba: return rgba
    case .rgb: keep = [0, 1, 2]
    case .gray: keep = [0]
    case .grayAlpha: keep = [0, 3]
    }
    var out: [UInt8] = []
    out.reserveCapacity(rgba.count / 4 * keep.count)
    for i in stride(from: 0, to: rgba.count, by: 4) {
        for k in keep { out.append(rgba[i + k]) }
    }
    return out
}

private func report(_ op: String, _ name: String, _ image: RGBAImage, _ layout: PNGSamples.Layout,
                    seconds: Double, rawBytes: Double, size: Int?) {
    let ms = String(format: "%.1f", seconds * 1000), rate = String(format: "%.1f", rawBytes / seconds / 1e6)
    print("png \(op) \(name) \(image.width)x\(image.height)x\(layout.channels) best_ms=\(ms) MBps=\(rate)" + (size.map { " bytes=\($0)" } ?? ""))
}

/// The cut-out encoder's compressors on the same images (written by `Benchmarks/png_peer.py`): zlib at
/// levels 1, 4 (the CLI's default) and 6, and the fast compressor, with the CLI's other settings
/// (adaptive filters, Z_FILTERED; the layout is kept, as the CLI's reduction keeps a cut-out's RGBA).
/// Prints `png compress MODE NAME WxHxC bytes=… cpu1_ms=… wall1_ms=… cpu2_ms=… wall2_ms=…`: the best
/// of `repeats` runs on 1 and on 2 threads, in process CPU time and in wall time (each its own best);
/// the file is checked to decode to the image and to be the same for both thread counts.
private func runCompressorComparison(directory: String, repeats: Int) {
    let modes: [(String, PNGEncoder.Options)] = [
        ("zlib-1", .init(level: 1)), ("zlib-4", .init(level: 4)), ("zlib-6", .init(level: 6)), ("fast", .init(compressor: .fast)),
    ]
    let images: [(String, PNGSamples.Layout)] = [("cutout-12mp", .rgba), ("cutout-person-11mp", .rgba), ("photo-12mp", .rgb), ("rgba-1080p", .rgba)]
    for (name, layout) in images {
        let path = directory + "/" + name + ".png"
        guard let bytes = try? ImageIO.readFile(path), let decoded = try? PNGDecoder.decode(bytes).image else {
            print("png skip \(name): cannot read \(path)")
            continue
        }
        let samples = PNGSamples(width: decoded.width, height: decoded.height, layout: layout,
                                 storage: .eight(dropChannels(decoded.pixels, to: layout)))
        for (mode, base) in modes {
            do {
                var files: [[UInt8]] = []
                var fields: [String] = []
                for threads in [1, 2] {
                    var options = base
                    options.threads = threads
                    var png: [UInt8] = []
                    let (cpu, wall) = try bestCPUAndWall(repeats) { png = try PNGEncoder.encode(samples, options: options) }
                    files.append(png)
                    fields += [String(format: "cpu%d_ms=%.1f", threads, cpu * 1000), String(format: "wall%d_ms=%.1f", threads, wall * 1000)]
                }
                precondition(files[1] == files[0], "the file depends on the thread count")
                let check = try PNGDecoder.decode(files[0]).image
                precondition(check == decoded, "the encoded file decodes to other pixels")
                print("png compress \(mode) \(name) \(decoded.width)x\(decoded.height)x\(layout.channels) bytes=\(files[0].count) "
                      + fields.joined(separator: " "))
            } catch {
                print("png error \(name) \(mode): \(error)")
            }
        }
    }
}

/// The least process CPU time and the least wall time, in seconds, over `repeats` runs of `body`.
private func bestCPUAndWall(_ repeats: Int, _ body: () throws -> Void) throws -> (cpu: Double, wall: Double) {
    var best = (cpu: Double.infinity, wall: Double.infinity)
    for _ in 0..<max(1, repeats) {
        let (cpu, wall) = (processCPUSeconds(), wallSeconds())
        try body()
        best = (min(best.cpu, processCPUSeconds() - cpu), min(best.wall, wallSeconds() - wall))
    }
    return best
}
