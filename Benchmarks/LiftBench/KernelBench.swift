// `lift-bench kernels [--json]`: GFLOP/s of LiftTensor's kernels on the real layer shapes of
// U²-Net-small (320×320) and MediaPipe selfie segmentation (256×256), at 1 and 2 threads, against
// the machine's FP32 peak and the scalar reference kernels, all measured in the same run.
import Foundation
import LiftTensor
import TestSupport

/// One benchmarked layer: a convolution (dense, grouped, depthwise) or a transposed convolution.
struct KernelLayer {
    var name: String
    var h: Int, w: Int, cin: Int, cout: Int
    var kernel = 3, stride = 1, dilation = 1, groups = 1
    var padding: PaddingMode
    var transposed = false
    var activation: Activation = .none

    /// U²-Net-small layer: PyTorch padding = dilation (output size = input size at stride 1), ReLU.
    static func u2net(_ name: String, _ size: Int, _ cin: Int, _ cout: Int, dilation: Int = 1) -> KernelLayer {
        KernelLayer(name: "u2netp." + name, h: size, w: size, cin: cin, cout: cout, dilation: dilation,
                    padding: .explicit(Padding(top: dilation, left: dilation, bottom: dilation, right: dilation)), activation: .relu)
    }

    /// MediaPipe selfie layer: TensorFlow SAME padding.
    static func selfie(_ name: String, _ size: Int, _ cin: Int, _ cout: Int, kernel: Int = 1, stride: Int = 1,
                       depthwise: Bool = false, activation: Activation = .relu) -> KernelLayer {
        KernelLayer(name: "selfie." + name, h: size, w: size, cin: cin, cout: cout, kernel: kernel, stride: stride,
                    groups: depthwise ? cin : 1, padding: .same, activation: activation)
    }

    /// Lift subject-model depthwise layer (Tools/liftpy/subject_model.py): 5×5, padding 2, hard-swish.
    static func subjectDepthwise(_ name: String, _ size: Int, _ channels: Int, stride: Int = 1) -> KernelLayer {
        KernelLayer(name: "subject." + name, h: size, w: size, cin: channels, cout: channels, kernel: 5, stride: stride,
                    groups: channels, padding: .explicit(Padding(top: 2, left: 2, bottom: 2, right: 2)), activation: .hardswish)
    }

    /// Lift subject-model 1×1 layer (variant `l`, 256² input).
    static func subjectPointwise(_ size: Int, _ cin: Int, _ cout: Int, activation: Activation) -> KernelLayer {
        KernelLayer(name: "subject.pw\(cin)-\(cout)", h: size, w: size, cin: cin, cout: cout, kernel: 1, padding: .valid,
                    activation: activation)
    }

    var isDepthwise: Bool { groups > 1 && groups == cin && groups == cout }
    var parameters: Conv2DParameters {
        Conv2DParameters(kernelHeight: kernel, kernelWidth: kernel, strideY: stride, strideX: stride,
                         dilationY: dilation, dilationX: dilation, padding: padding, groups: groups, activation: activation)
    }
    var shapeText: String {
        let op = transposed ? "convT" : (isDepthwise ? "dw" : "conv")
        return "\(h)x\(w)x\(cin)->\(cout) \(op)\(kernel)x\(kernel) s\(stride) d\(dilation)" + (groups > 1 && !isDepthwise ? " g\(groups)" : "")
    }
}

/// The benchmarked shapes (see Benchmarks/RESULTS.md for where each occurs in its network).
let kernelLayers: [KernelLayer] = [
    .u2net("rsu7.in", 320, 3, 64),
    .u2net("rsu7.conv1", 320, 64, 16),
    .u2net("rsu7.conv2", 160, 16, 16),
    .u2net("rsu7.dec2", 160, 32, 16),
    .u2net("rsu7.out", 320, 32, 64),
    .u2net("rsu6.in", 160, 64, 64),
    .u2net("rsu5.conv1", 80, 64, 16),
    .u2net("rsu4f.d2", 20, 16, 16, dilation: 2),
    .u2net("rsu4f.d4", 20, 16, 16, dilation: 4),
    .u2net("rsu4f.d8", 20, 16, 16, dilation: 8),
    .u2net("dec5.in", 40, 128, 64),
    .u2net("dec1.in", 320, 128, 64),
    .u2net("side1", 320, 64, 1),
    KernelLayer(name: "u2netp.fuse", h: 320, w: 320, cin: 6, cout: 1, kernel: 1, padding: .valid),
    .selfie("stem", 256, 3, 16, kernel: 3, stride: 2, activation: .hardswish),
    .selfie("conv2d_1", 128, 16, 16),
    .selfie("dw0", 128, 16, 16, kernel: 3, stride: 2, depthwise: true),
    .selfie("conv2d_5", 64, 16, 72),
    .selfie("dw1", 64, 72, 72, kernel: 3, stride: 2, depthwise: true),
    .selfie("conv2d_6", 32, 72, 24, activation: .none),
    .selfie("conv2d_7", 32, 24, 88),
    .selfie("dw2", 32, 88, 88, kernel: 3, depthwise: true),
    .selfie("conv2d_9", 32, 24, 96, activation: .hardswish),
    .selfie("dw3", 32, 96, 96, kernel: 5, stride: 2, depthwise: true, activation: .hardswish),
    .selfie("conv2d_12", 16, 96, 32, activation: .none),
    .selfie("conv2d_13", 16, 32, 128, activation: .hardswish),
    .selfie("dw4", 16, 128, 128, kernel: 5, depthwise: true, activation: .hardswish),
    .selfie("conv2d_16", 16, 128, 32, activation: .none),
    .selfie("dw10", 128, 16, 16, kernel: 3, depthwise: true),
    // The subject model "m" (256² input): the light decoder stage's depthwise layer at /2, and the
    // encoder's at /16 and /32.
    KernelLayer(name: "subject.dw24", h: 128, w: 128, cin: 24, cout: 24, groups: 24,
                padding: .explicit(Padding(top: 1, left: 1, bottom: 1, right: 1)), activation: .relu),
    .subjectDepthwise("dw192", 16, 192),
    .subjectDepthwise("dw256", 16, 256),
    .subjectDepthwise("dw384", 16, 384, stride: 2),
    .subjectDepthwise("dw512", 8, 512),
    // The subject model "l": the 1×1 layers that take most of its time (expand, project, decoder).
    .subjectPointwise(16, 64, 384, activation: .hardswish),
    .subjectPointwise(16, 384, 64, activation: .none),
    .subjectPointwise(32, 48, 192, activation: .hardswish),
    .subjectPointwise(8, 512, 128, activation: .none),
    .subjectPointwise(128, 48, 24, activation: .relu),
    KernelLayer(name: "selfie.segment", h: 128, w: 128, cin: 16, cout: 1, kernel: 2, stride: 2, padding: .valid, transposed: true),
]

/// A layer made runnable: the packed kernel, its output shape and the reference on a crop.
private struct PreparedLayer {
    var run: (Tensor, Tensor, Int) -> Void
    var outputShape: TensorShape
    /// Multiply-adds ×2 for one run on `[1, h, w, cin]`.
    var flops: Double
}

private func prepare(_ layer: KernelLayer, h: Int, w: Int, seed: UInt64) -> (PreparedLayer, [Float]) {
    var rng = BenchRandom(seed: seed)
    let cinG = layer.cin / layer.groups
    let weights = rng.array(layer.cout * layer.kernel * layer.kernel * (layer.transposed ? layer.cin : cinG), scale: 0.1)
    let bias = rng.array(layer.cout, scale: 0.1)
    let shape = TensorShape(n: 1, h: h, w: w, c: layer.cin)
    if layer.transposed {
        let conv = ConvTranspose2D(weights: weights, bias: bias, inputChannels: layer.cin, outputChannels: layer.cout,
                                   kernelHeight: layer.kernel, kernelWidth: layer.kernel, strideY: layer.stride,
                                   strideX: layer.stride, activation: layer.activation)
        let out = conv.outputShape(for: shape)!
        let flops = 2.0 * Double(h * w * layer.cin * layer.cout * layer.kernel * layer.kernel)
        return (PreparedLayer(run: { conv.run(input: $0, output: $1, threads: $2) }, outputShape: out, flops: flops), weights)
    }
    let conv = Conv2D(weights: weights, bias: bias, inputChannels: layer.cin, outputChannels: layer.cout, parameters: layer.parameters)
    let out = conv.outputShape(for: shape)!
    let flops = 2.0 * Double(out.h * out.w * layer.cout * cinG * layer.kernel * layer.kernel)
    return (PreparedLayer(run: { conv.run(input: $0, output: $1, threads: $2) }, outputShape: out, flops: flops), weights)
}

/// Deterministic inputs without depending on the test targets' generator.
struct BenchRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func array(_ count: Int, scale: Float) -> [Float] {
        (0 ..< count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * scale
        }
    }
}

/// Which clock `bestTime` reads.
enum BenchClock {
    /// Wall time: the only fair clock for multi-threaded runs.
    case wall
    /// CPU time of the calling thread: on a machine shared with other jobs it excludes the time the
    /// thread sat preempted, which wall time of a multi-millisecond run almost always includes.
    case threadCPU

    func now() -> Double {
        switch self {
        case .wall: return Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        case .threadCPU: return threadCPUSeconds()
        }
    }
}

/// Best time (seconds) of one call of `body` over at least `minRuns` samples and `minSeconds` in
/// total, after one warm-up call; the minimum filters out interference from other processes on this
/// shared machine. Calls shorter than 1 ms are batched so that each sample lasts about 1 ms (clock
/// reads and their granularity would otherwise dominate). `body` gets a running call index.
func bestTime(clock: BenchClock, minRuns: Int = 3, minSeconds: Double = 0.25, _ body: (Int) -> Void) -> Double {
    let warmStart = clock.now()
    body(0)
    let batch = max(1, min(1000, Int(1e-3 / max(clock.now() - warmStart, 1e-7))))
    var best = Double.infinity, total = 0.0, samples = 0, call = 1
    while samples < minRuns || total < minSeconds {
        let start = clock.now()
        for _ in 0 ..< batch {
            body(call)
            call += 1
        }
        let seconds = clock.now() - start
        best = min(best, seconds / Double(batch))
        total += seconds
        samples += 1
    }
    return best
}

/// The FP32 FMA peak of one core: 12 independent 16-wide FMA chains (more than latency × ports).
@inline(never)
func fmaLoop(iterations: Int, seed: Float) -> Float {
    // a ← a + x·y on each chain: one dependent FMA per chain per iteration, values stay finite.
    let x = SIMD16<Float>(repeating: 0.999_999), y = SIMD16<Float>(repeating: seed)
    var a0 = y, a1 = y + 1, a2 = y + 2, a3 = y + 3, a4 = y + 4, a5 = y + 5
    var a6 = y + 6, a7 = y + 7, a8 = y + 8, a9 = y + 9, a10 = y + 10, a11 = y + 11
    for _ in 0 ..< iterations {
        a0 = a0.addingProduct(x, y); a1 = a1.addingProduct(x, y); a2 = a2.addingProduct(x, y)
        a3 = a3.addingProduct(x, y); a4 = a4.addingProduct(x, y); a5 = a5.addingProduct(x, y)
        a6 = a6.addingProduct(x, y); a7 = a7.addingProduct(x, y); a8 = a8.addingProduct(x, y)
        a9 = a9.addingProduct(x, y); a10 = a10.addingProduct(x, y); a11 = a11.addingProduct(x, y)
    }
    return (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11).sum()
}

/// Peak GFLOP/s with `threads` threads each running the FMA loop.
/// Short runs (about 1 ms) so that some of them run unpreempted; 1 thread uses thread CPU time.
func measurePeak(threads: Int) -> Double {
    let iterations = 200_000
    let sums = UnsafeMutablePointer<Float>.allocate(capacity: threads)
    defer { sums.deallocate() }
    let seconds = bestTime(clock: threads == 1 ? .threadCPU : .wall, minRuns: 20, minSeconds: 0.3) { run in
        Parallel.forEach(count: threads, threads: threads) { parts in
            for part in parts { sums[part] = fmaLoop(iterations: iterations, seed: Float(run + 1) * 1e-7) }
        }
    }
    if sums[0].isNaN { print("FMA loop produced NaN") } // keeps the loop's result alive
    return Double(iterations * 12 * 16 * 2 * threads) / seconds / 1e9
}

/// Copy bandwidth (GB/s, bytes read + written) for blocks of `floats` floats, rotating buffers.
func measureCopyBandwidth(floats: Int, buffers: [Tensor], into destination: Tensor) -> Double {
    let seconds = bestTime(clock: .threadCPU) { run in destination.data.update(from: buffers[run % buffers.count].data, count: floats) }
    return Double(2 * floats * 4) / seconds / 1e9
}

/// Runs the benchmark; `arguments` may contain `--json` (one JSON line per layer: `name`, `gflops_1t`,
/// `gflops_2t`, `peak_gflops_1t`, `peak_gflops_2t`, `reference_gflops_1t`, `ms_1t`, `ms_2t`, `flops` and
/// the layer's shape and attributes), `--filter SUBSTRING` (layers whose name contains it) and
/// `--buffers N` (rotate N input buffers instead of ≥ 8 MB of them).
func runKernelBench(arguments: [String]) {
    let json = arguments.contains("--json")
    func value(_ flag: String) -> String? {
        arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }
    let filter = value("--filter"), fixedBuffers = value("--buffers").flatMap(Int.init).map { max(1, $0) }
    let peak1 = measurePeak(threads: 1), peak2 = measurePeak(threads: 2)
    if !json {
        print("FP32 FMA peak (same run): \(fmt(peak1)) GFLOP/s on 1 thread, \(fmt(peak2)) on 2")
        print("name".padding(18) + "shape".padding(34) + "1t GF/s".padding(9, left: true) + "%peak".padding(7, left: true)
              + "2t GF/s".padding(9, left: true) + "2t/1t".padding(7, left: true) + "ref GF/s".padding(10, left: true) + "  notes")
    }
    for layer in kernelLayers where filter.map({ layer.name.contains($0) }) ?? true {
        let (prepared, _) = prepare(layer, h: layer.h, w: layer.w, seed: 1)
        // Rotate inputs so that together they exceed the L2 cache (≥ 8 MB, at least 2 buffers), unless
        // `--buffers N` asks for a fixed number (1 = cache-warm input).
        let inputShape = TensorShape(n: 1, h: layer.h, w: layer.w, c: layer.cin)
        let buffers = fixedBuffers ?? max(2, min(16, (8 << 20) / max(inputShape.count * 4, 1)))
        var rng = BenchRandom(seed: 2)
        let inputs = (0 ..< buffers).map { _ in Tensor(shape: inputShape, values: rng.array(inputShape.count, scale: 1)) }
        let output = Tensor(shape: prepared.outputShape)
        let t1 = bestTime(clock: .threadCPU) { prepared.run(inputs[$0 % buffers], output, 1) }
        // Two threads as the executor runs a network: every call inside one standing team.
        let t2 = Parallel.withTeam(threads: 2) { bestTime(clock: .wall) { prepared.run(inputs[$0 % buffers], output, 2) } }
        let g1 = prepared.flops / t1 / 1e9, g2 = prepared.flops / t2 / 1e9
        // The scalar reference runs on a crop (≤ 24×24 output pixels) of the same layer.
        let span = (layer.kernel - 1) * layer.dilation + 1
        let cropH = min(layer.h, 24 * layer.stride + span), cropW = min(layer.w, 24 * layer.stride + span)
        let (crop, weights) = prepare(layer, h: cropH, w: cropW, seed: 1)
        let cropInput = Tensor(shape: TensorShape(n: 1, h: cropH, w: cropW, c: layer.cin), values: rng.array(cropH * cropW * layer.cin, scale: 1))
        let tRef = bestTime(clock: .threadCPU, minRuns: 1, minSeconds: 0.1) { _ in
            if layer.transposed {
                _ = ReferenceKernels.convTranspose2d(input: cropInput, weights: weights, bias: nil, outputChannels: layer.cout,
                                                     kernel: (layer.kernel, layer.kernel), stride: (layer.stride, layer.stride),
                                                     crop: (0, 0, 0, 0), activation: layer.activation)
            } else {
                _ = ReferenceKernels.conv2d(input: cropInput, weights: weights, bias: nil, outputChannels: layer.cout, parameters: layer.parameters)
            }
        }
        let gRef = crop.flops / tRef / 1e9
        var notes = ""
        var extra = ""
        if layer.isDepthwise {
            let bytes = Double((inputShape.count + prepared.outputShape.count) * 4)
            let copy = measureCopyBandwidth(floats: inputShape.count, buffers: inputs, into: Tensor(shape: inputShape))
            let dwBandwidth = bytes / t1 / 1e9
            // The most any kernel could reach: all its FMAs at the same run's 1-thread peak, no loads.
            let ceiling = bytes / (prepared.flops / (peak1 * 1e9)) / 1e9
            notes = "\(fmt(dwBandwidth)) GB/s = \(fmt(100 * dwBandwidth / copy))% of copy \(fmt(copy)) GB/s"
                + " (FMA-peak ceiling \(fmt(100 * ceiling / copy))%)"
            extra = #","gbs_1t":\#(fmt(dwBandwidth)),"copy_gbs":\#(fmt(copy)),"fma_ceiling_gbs":\#(fmt(ceiling))"#
        }
        if json {
            let p = layer.padding.resolve(height: layer.h, width: layer.w, kernel: (layer.kernel, layer.kernel),
                                          stride: (layer.stride, layer.stride), dilation: (layer.dilation, layer.dilation))
            print(#"{"name":"\#(layer.name)","gflops_1t":\#(fmt(g1)),"gflops_2t":\#(fmt(g2)),"peak_gflops_1t":\#(fmt(peak1)),"#
                + #""peak_gflops_2t":\#(fmt(peak2)),"#
                + #""reference_gflops_1t":\#(fmt(gRef)),"ms_1t":\#(String(format: "%.4f", t1 * 1e3)),"ms_2t":\#(String(format: "%.4f", t2 * 1e3)),"flops":\#(Int(prepared.flops)),"#
                + #""h":\#(layer.h),"w":\#(layer.w),"cin":\#(layer.cin),"cout":\#(layer.cout),"kernel":\#(layer.kernel),"#
                + #""stride":\#(layer.stride),"dilation":\#(layer.dilation),"groups":\#(layer.groups),"#
                + #""padding":[\#(p.top),\#(p.left),\#(p.bottom),\#(p.right)],"transposed":\#(layer.transposed),"#
                + #""activation":"\#(layer.activation.rawValue)"\#(extra)}"#)
        } else {
            print(layer.name.padding(18) + layer.shapeText.padding(34) + fmt(g1).padding(9, left: true)
                  + (fmt(100 * g1 / peak1) + "%").padding(7, left: true) + fmt(g2).padding(9, left: true)
                  + (fmt(g2 / g1) + "x").padding(7, left: true) + fmt(gRef).padding(10, left: true) + "  " + notes)
        }
    }
}

private func fmt(_ value: Double) -> String {
    value >= 100 ? String(format: "%.0f", value) : (value >= 10 ? String(format: "%.1f", value) : String(format: "%.2f", value))
}

extension String {
    /// The string padded with spaces to `width` (right-aligned when `left`).
    func padding(_ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - count))
        return left ? fill + self : self + fill
    }
}
