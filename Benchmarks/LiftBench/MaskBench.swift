// `lift-bench mask [DIR] [--runs N]`: the mask stage on a 12 MP photo.
//
// Connected components (Mpixel/s) on a 4000×3000 mask with ~50 blobs, the guided filter, the
// instance grouping by model cues and the whole mask stage (`Analysis`, with components and with
// the cues) in ms, on 1 and 2 threads. Writes the mask as `DIR/mask.pgm` and the
// figures as `DIR/swift.json` so `Benchmarks/mask_peer.py DIR` can time OpenCV and SciPy on the
// identical mask in the same run and print the ratios.
import Foundation
import Lift

/// Milliseconds of `body` after one warm-up: wall-clock best and median over `runs` runs, and the
/// least CPU time of a run (all threads together). On a shared machine the CPU time is the steadier
/// figure: it does not grow while the process waits for a core.
private func measure(runs: Int, _ body: () -> Void) -> (best: Double, median: Double, cpu: Double) {
    body()
    var times: [Double] = []
    var cpu = Double.infinity
    for _ in 0 ..< runs {
        let start = DispatchTime.now().uptimeNanoseconds
        let startCPU = processCPUSeconds() * 1000
        body()
        cpu = min(cpu, processCPUSeconds() * 1000 - startCPU)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    times.sort()
    return (times[0], times[times.count / 2], cpu)
}

/// A 4000×3000 mask of 50 random ellipses (some overlap and merge), deterministic.
private func blobMask(width: Int, height: Int, blobs: Int) -> GrayImage {
    var state: UInt64 = 0x5EED
    func random() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    var pixels = [UInt8](repeating: 0, count: width * height)
    for _ in 0 ..< blobs {
        let cx = random() * Double(width), cy = random() * Double(height)
        let rx = 15 + random() * 160, ry = 15 + random() * 160
        let angle = random() * .pi
        let (c, s) = (cos(angle), sin(angle))
        let reach = max(rx, ry)
        for y in max(0, Int(cy - reach)) ..< min(height, Int(cy + reach) + 1) {
            for x in max(0, Int(cx - reach)) ..< min(width, Int(cx + reach) + 1) {
                let dx = Double(x) - cx, dy = Double(y) - cy
                let u = (dx * c + dy * s) / rx, v = (-dx * s + dy * c) / ry
                if u * u + v * v <= 1 { pixels[y * width + x] = 255 }
            }
        }
    }
    return GrayImage(width: width, height: height, pixels: pixels)
}

/// A photo for the mask: warm textured subjects on a cool gradient, with pixel noise.
private func photo(for mask: GrayImage) -> RGBAImage {
    var pixels = [UInt8](repeating: 255, count: mask.width * mask.height * 4)
    var state: UInt32 = 1
    for y in 0 ..< mask.height {
        for x in 0 ..< mask.width {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = UInt8(state >> 28)
            let i = (y * mask.width + x) * 4
            if mask.pixels[y * mask.width + x] != 0 {
                pixels[i] = 200 &+ noise; pixels[i + 1] = UInt8(100 + (x / 7) % 50); pixels[i + 2] = 60 &+ noise
            } else {
                pixels[i] = UInt8(40 + x * 60 / mask.width); pixels[i + 1] = 90 &+ noise; pixels[i + 2] = UInt8(150 + y * 80 / mask.height)
            }
        }
    }
    return RGBAImage(width: mask.width, height: mask.height, pixels: pixels)
}

/// The mask as a model would see it: block coverage on a `size × size` map (stretched).
private func probabilityMap(of mask: GrayImage, size: Int) -> FloatMap {
    var values = [Float](repeating: 0, count: size * size)
    var counts = [Float](repeating: 0, count: size * size)
    for y in 0 ..< mask.height {
        let my = y * size / mask.height
        for x in 0 ..< mask.width {
            let i = my * size + x * size / mask.width
            counts[i] += 1
            if mask.pixels[y * mask.width + x] != 0 { values[i] += 1 }
        }
    }
    return FloatMap(width: size, height: size, values: zip(values, counts).map { $0 / $1 })
}

/// Instance cues for `instances` on a `size × size` model frame (the photo stretched to it), at
/// stride 4: a centre peak at each of the `peaks` largest instances' centroids and offsets from
/// every cell to the nearest of them (so the large blobs split into Voronoi cells where several
/// peaks fall on one), a boundary map of 0.5 everywhere (every border is checked, half the pairs merge).
private func syntheticCues(_ instances: [Instance], photoWidth: Int, photoHeight: Int, size: Int, peaks: Int) -> InstanceCues? {
    let cells = size / 4
    let centres = instances.prefix(peaks).map { (y: $0.centroid.y * Double(size) / Double(photoHeight) - 0.5,
                                                 x: $0.centroid.x * Double(size) / Double(photoWidth) - 0.5) }
    var centre = [Float](repeating: 0, count: cells * cells), dy = centre, dx = centre
    for i in 0 ..< cells {
        for j in 0 ..< cells {
            let y = Double(4 * i) + 1.5, x = Double(4 * j) + 1.5, c = i * cells + j
            var best = (d2: Double.infinity, y: 0.0, x: 0.0)
            for p in centres {
                let d2 = (p.y - y) * (p.y - y) + (p.x - x) * (p.x - x)
                centre[c] = max(centre[c], Float(exp(-d2 / 32)))
                if d2 < best.d2 { best = (d2, p.y - y, p.x - x) }
            }
            dy[c] = Float(best.y)
            dx[c] = Float(best.x)
        }
    }
    func map(_ v: [Float]) -> FloatMap { FloatMap(width: cells, height: cells, values: v) }
    return try? InstanceCues(modelWidth: size, modelHeight: size, centre: map(centre), offsetY: map(dy), offsetX: map(dx),
                             boundary: FloatMap(width: cells, height: cells, value: 0.5))
}

func runMaskBench(_ arguments: [String]) {
    var directory = "Benchmarks/.work/mask-bench"
    var runs = 10
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
        if argument == "--runs", let value = iterator.next(), let n = Int(value) { runs = max(1, n) } else { directory = argument }
    }
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let width = 4000, height = 3000
    let megapixels = Double(width * height) / 1e6
    let mask = blobMask(width: width, height: height, blobs: 50)
    let header = Array("P5\n\(width) \(height)\n255\n".utf8)
    _ = FileManager.default.createFile(atPath: directory + "/mask.pgm", contents: Data(header + mask.pixels))
    let image = photo(for: mask)
    let map = probabilityMap(of: mask, size: 320)
    let binary = FloatMap(width: width, height: height, values: mask.pixels.map { $0 != 0 ? 1 : 0 })
    print("mask: \(width)×\(height), \(ConnectedComponents.label(mask, threads: 1).components.count) components (8-connected); \(runs) runs; wall ms best / median, least CPU ms")
    var results: [String: Double] = [:]
    for threads in [1, 2] {
        let label = measure(runs: runs) { _ = ConnectedComponents.label(mask, connectivity: .eight, threads: threads) }
        let label4 = measure(runs: runs) { _ = ConnectedComponents.label(mask, connectivity: .four, threads: threads) }
        // The radius Analysis picks for a 320² map on 12 MP (half of 12.5 photo pixels per map pixel).
        let filter = GuidedFilter(radius: 6, epsilon: 1e-4, subsampling: GuidedFilter.defaultSubsampling(width: width, height: height))
        let guided = measure(runs: max(3, runs / 2)) { _ = filter.apply(guide: image, input: binary, threads: threads) }
        let upsample = measure(runs: max(3, runs / 2)) { _ = try? MaskResize.bilinear(map, width: width, height: height, threads: threads) }
        let labels = InstanceSegmentation(mask: mask, threads: threads).labels
        let ownership = measure(runs: max(3, runs / 2)) { _ = OwnershipMap(labels: labels, reach: 26, threads: threads) }
        let threshold = measure(runs: max(3, runs / 2)) { _ = Threshold.mask(binary, threshold: 0.5, threads: threads) }
        let options = Analysis.Options(threads: threads)
        let stage = measure(runs: max(3, runs / 3)) { _ = try? Analysis(photo: image, probability: map, options: options) }
        // Instances by the model's cues: the grouping alone on the components, and the
        // whole stage with it, 8 peaks on the 8 largest components.
        let segmentation = InstanceSegmentation(mask: mask, threads: threads)
        let cues = syntheticCues(segmentation.instances, photoWidth: width, photoHeight: height, size: 320, peaks: 8)
        let grouping = measure(runs: max(3, runs / 2)) {
            _ = cues.map { try? segmentation.grouped(by: $0, parameters: .init(), scoreRows: nil, threads: threads) }
        }
        var byModel = options
        byModel.instances = .model
        let stageByModel = measure(runs: max(3, runs / 3)) {
            _ = try? Analysis(photo: image, probability: map, instanceCues: cues, options: byModel)
        }
        let grouped = cues.flatMap { try? segmentation.grouped(by: $0, parameters: .init(), scoreRows: nil, threads: threads) }
        var subjects: [Subject] = []
        var analysis: Analysis?
        analysis = try? Analysis(photo: image, probability: map, options: options)
        subjects = analysis?.subjects ?? []
        let cutout = measure(runs: 3) { _ = try? analysis?.image(for: subjects, background: .transparent) }
        print("threads \(threads):")
        print(String(format: "  components 8-conn + stats  %7.2f / %7.2f ms  CPU %7.2f  %6.0f Mpixel/s", label.best, label.median, label.cpu, megapixels / label.best * 1000))
        print(String(format: "  components 4-conn + stats  %7.2f / %7.2f ms  CPU %7.2f  %6.0f Mpixel/s", label4.best, label4.median, label4.cpu, megapixels / label4.best * 1000))
        print(String(format: "  bilinear upsample 320²→12MP %7.2f / %7.2f ms  CPU %7.2f", upsample.best, upsample.median, upsample.cpu))
        print(String(format: "  guided filter (r 6, s 4)    %7.2f / %7.2f ms  CPU %7.2f", guided.best, guided.median, guided.cpu))
        print(String(format: "  threshold                   %7.2f / %7.2f ms  CPU %7.2f", threshold.best, threshold.median, threshold.cpu))
        print(String(format: "  ownership (reach 26)        %7.2f / %7.2f ms  CPU %7.2f", ownership.best, ownership.median, ownership.cpu))
        print(String(format: "  whole mask stage (Analysis) %7.2f / %7.2f ms  CPU %7.2f  (%d subjects)", stage.best, stage.median, stage.cpu, subjects.count))
        print(String(format: "  instance grouping (8 peaks) %7.2f / %7.2f ms  CPU %7.2f  (%d → %d instances)", grouping.best, grouping.median,
                     grouping.cpu, segmentation.instances.count, grouped?.instances.count ?? -1))
        print(String(format: "  mask stage, instances model %7.2f / %7.2f ms  CPU %7.2f", stageByModel.best, stageByModel.median, stageByModel.cpu))
        print(String(format: "  cut-out (decontaminated)    %7.2f / %7.2f ms  CPU %7.2f", cutout.best, cutout.median, cutout.cpu))
        results["components8_ms_\(threads)t"] = label.best
        results["components4_ms_\(threads)t"] = label4.best
        results["components8_cpu_ms_\(threads)t"] = label.cpu
        results["components4_cpu_ms_\(threads)t"] = label4.cpu
        results["upsample_ms_\(threads)t"] = upsample.best
        results["guided_filter_ms_\(threads)t"] = guided.best
        results["ownership_ms_\(threads)t"] = ownership.best
        results["mask_stage_ms_\(threads)t"] = stage.best
        results["cutout_ms_\(threads)t"] = cutout.best
        results["grouping_ms_\(threads)t"] = grouping.best
        results["mask_stage_model_ms_\(threads)t"] = stageByModel.best
    }
    let components = ConnectedComponents.label(mask, threads: 1).components
    results["components"] = Double(components.count)
    results["foreground_pixels"] = Double(components.reduce(0) { $0 + $1.area })
    if let json = try? JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted]) {
        _ = FileManager.default.createFile(atPath: directory + "/swift.json", contents: json)
    }
    let peer = (try? peerPython()) ?? "Tools/setup-python.sh && .venv/bin/python"
    print("wrote \(directory)/mask.pgm and \(directory)/swift.json; now run: \(peer) Benchmarks/mask_peer.py \(directory)")
}

/// Reads a binary PGM (P5, one channel) or PPM (P6, RGB) with maxval 255: (width, height, channels, samples).
private func readPNM(_ path: String) -> (width: Int, height: Int, channels: Int, samples: [UInt8])? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let bytes = [UInt8](data)
    var fields: [String] = []
    var i = 0
    while fields.count < 4 && i < bytes.count {
        while i < bytes.count && (bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) { i += 1 }
        var field = ""
        while i < bytes.count && !(bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) {
            field.append(Character(UnicodeScalar(bytes[i])))
            i += 1
        }
        fields.append(field)
    }
    i += 1
    guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255" else { return nil }
    let channels = fields[0] == "P6" ? 3 : fields[0] == "P5" ? 1 : 0
    guard channels > 0, bytes.count - i == width * height * channels else { return nil }
    return (width, height, channels, Array(bytes[i...]))
}

/// Reads `MAPF W H\n` + little-endian float32 samples.
private func readMap(_ path: String) -> FloatMap? {
    guard let data = FileManager.default.contents(atPath: path), let newline = data.firstIndex(of: 0x0A) else { return nil }
    let header = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ")
    guard header.count == 3, header[0] == "MAPF", let width = Int(header[1]), let height = Int(header[2]) else { return nil }
    let body = data[(newline + 1)...]
    guard body.count == width * height * 4 else { return nil }
    let values = body.withUnsafeBytes { raw in (0 ..< width * height).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) } }
    return FloatMap(width: width, height: height, values: values)
}

/// `lift-bench mask-quality DIR`: mean absolute error against ground truth of the plain bilinear
/// upsampled map and of the refined alpha, over the whole photo and over the edge band (pixels where
/// the upsampled map is between 0.02 and 0.98). Data from `Benchmarks/mask_quality.py`.
///
/// `--dump OUT` also writes, for the first five samples, the default analysis's composite over
/// magenta (fringes show up pink) as `OUT/KEY-over.ppm`, with and without decontamination.
func runMaskQuality(_ arguments: [String]) {
    var directory = "Benchmarks/.work/mask-quality"
    var dump: String?
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
        if argument == "--dump" { dump = iterator.next() } else { directory = argument }
    }
    let keys = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { $0.hasSuffix(".map") }.map { String($0.dropLast(4)) }.sorted()
    var variants: [(String, Analysis.Options)] = [("bilinear only (refine off)", Analysis.Options(refine: false, decontaminate: false))]
    for epsilon: Float in [1e-3, 1e-4] {
        for radius in [nil, 1, 4, 8] as [Int?] {
            variants.append(("refined, r \(radius.map(String.init) ?? "auto"), ε \(epsilon)",
                             Analysis.Options(refineRadius: radius, refineEpsilon: epsilon, decontaminate: false)))
        }
    }
    var total = [(all: Double, band: Double)](repeating: (0, 0), count: variants.count)
    var counted = 0
    for key in keys {
        guard let photo = readPNM("\(directory)/\(key).ppm"), photo.channels == 3,
              let truth = readPNM("\(directory)/\(key).pgm"), truth.channels == 1,
              truth.width == photo.width, truth.height == photo.height,
              let map = readMap("\(directory)/\(key).map") else { continue }
        var rgba = [UInt8](repeating: 255, count: photo.width * photo.height * 4)
        for p in 0 ..< photo.width * photo.height { for c in 0 ..< 3 { rgba[p * 4 + c] = photo.samples[p * 3 + c] } }
        let image = RGBAImage(width: photo.width, height: photo.height, pixels: rgba)
        guard let upsampled = try? MaskResize.bilinear(map, width: photo.width, height: photo.height) else { continue }
        for (v, (_, options)) in variants.enumerated() {
            guard let analysis = try? Analysis(photo: image, probability: map, options: options) else { continue }
            var all = 0.0, band = 0.0, bandCount = 0
            for p in 0 ..< photo.width * photo.height {
                let error = Double(abs(analysis.alpha.values[p] - Float(truth.samples[p]) / 255))
                all += error
                if upsampled.values[p] > 0.02 && upsampled.values[p] < 0.98 { band += error; bandCount += 1 }
            }
            total[v].all += all / Double(photo.width * photo.height)
            total[v].band += bandCount > 0 ? band / Double(bandCount) : 0
        }
        if let dump, counted < 5, let analysis = try? Analysis(photo: image, probability: map) {
            try? FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true)
            let magenta = Background.color(RGBAColor(r: 255, g: 0, b: 255))
            for (suffix, decontaminate) in [("clean", true), ("raw", false)] {
                var options = analysis.options
                options.decontaminate = decontaminate
                guard let variant = try? Analysis(photo: image, probability: map, options: options),
                      let over = try? variant.image(for: variant.subjects, background: magenta) else { continue }
                var ppm = Array("P6\n\(over.width) \(over.height)\n255\n".utf8)
                for p in 0 ..< over.pixelCount { ppm += over.pixels[p * 4 ..< p * 4 + 3] }
                _ = FileManager.default.createFile(atPath: "\(dump)/\(key)-over-\(suffix).ppm", contents: Data(ppm))
            }
        }
        counted += 1
    }
    print("\(counted) samples (photo ≤ 320 px, model map 80×80): mean absolute alpha error vs ground truth, whole photo / edge band")
    for (v, (name, _)) in variants.enumerated() {
        print(String(format: "  %-28@ %.4f / %.4f", name as NSString, total[v].all / Double(max(counted, 1)), total[v].band / Double(max(counted, 1))))
    }
}
