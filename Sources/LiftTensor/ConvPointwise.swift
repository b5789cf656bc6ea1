// The dense 1×1 stride-1 convolution with a multiple of 8 output channels, of one input tensor or
// of several side by side (a fused concat), as a GEMM over all N·H·W pixels: a tile of P pixels × F blocks of 16 output channels (SIMD16
// accumulators) plus, when the channel count ends in 8 lanes, one 8-channel half block (SIMD8
// accumulators: half the FMA work of a zero-padded 16-lane block on this machine). Each input value
// is broadcast into the F (+ half) weight vectors of its channel. The input depth of a single input
// (K = 16, 24, 32) and the activation are compile-time constants, and the tiles are sized so that the accumulators
// stay in registers from the bias load to the store (checked in the generated assembly). Every
// output is the bias plus its K products in channel order, the sum `runDirect` and
// `runPointwiseConcatenated` form, so results match theirs bit for bit, for any thread split.

import LiftParallel

/// A compile-time tile: depth `K` (0 = the sources' channel counts), `P` pixels, `F` full blocks of
/// 16 output channels, `H` (0 or 1) 8-channel half blocks and activation `A` (see `Epilogue`).
private enum PointwiseTile<let K: Int, let P: Int, let F: Int, let H: Int, let A: Int> {}

/// One run's raw pointers and sizes for the pointwise tiles.
private struct PointwiseJob {
    /// The input tensors, concatenated along channels in this order.
    let sources: UnsafeBufferPointer<ConvSource>
    /// The first source's data.
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let weights: UnsafePointer<Float>
    let bias: UnsafePointer<Float>
    /// Input channels K of all sources.
    let depth: Int
    /// Output channels (pixel stride of the output).
    let outputChannels: Int
    /// Floats between the same input channel of two consecutive weight blocks.
    let blockStride: Int
    let activation: Activation
}

/// Most pixels in a band of work (about 96: large maps keep the band the kernel was tuned with).
private let pointwiseBandPixels = 96

/// True when `runPointwise` can run a convolution of this geometry (packed `.blocked`): dense 1×1
/// stride 1 unpadded, with a multiple of 8 output channels (at least 16).
func pointwiseCan(_ g: ConvGeometry) -> Bool {
    g.isPointwise && g.packed.groups == 1 && g.outputChannels % (vectorWidth / 2) == 0 && g.outputChannels >= vectorWidth
}

/// Runs a convolution for which `pointwiseCan` holds, packed with the `.blocked` layout, on the
/// channel concatenation of `sources` (one or more tensors of the same N, H, W).
///
/// Output channels are split into chunks of 4 (AVX2: 1), then 2, then 1 blocks of 16; a trailing 8 channels
/// are a half block in the last chunk. Pixels are split into bands of about 96, work items are
/// bands × chunks, row-major (see `PointwiseBands`). Every output is the same sum whatever tile or
/// band computes it, so results are bit-identical for any split.
func runPointwise(_ g: ConvGeometry, sources: UnsafeBufferPointer<ConvSource>, output: UnsafeMutablePointer<Float>, threads: Int) {
    precondition(pointwiseCan(g), "the pointwise kernel needs a dense 1×1 stride-1 unpadded convolution with 16, 24, 32… outputs")
    let pixels = g.batch * g.inputHeight * g.inputWidth
    let cout = g.outputChannels
    let half = cout % vectorWidth != 0, fullBlocks = cout / vectorWidth
    let widest = pointwiseWidestChunk, wide = fullBlocks / widest, rest = fullBlocks % widest
    let two = rest >= 2, one = rest % 2 == 1
    let chunks = wide + (two ? 1 : 0) + (one ? 1 : 0)
    /// Chunk `chunk`'s width in full blocks and its first block.
    @inline(__always) func chunkBlocks(_ chunk: Int) -> (width: Int, block: Int) {
        if chunk < wide { return (widest, chunk &* widest) }
        if two && chunk == wide { return (2, wide &* widest) }
        return (1, fullBlocks &- 1)
    }
    precondition(sources.reduce(0) { $0 + $1.channels } == g.inputChannels, "the sources must hold the input channels")
    let job = PointwiseJob(sources: sources, input: sources[0].data, output: output, weights: g.packed.weights, bias: g.packed.bias,
                           depth: g.inputChannels, outputChannels: cout, blockStride: g.packed.blockStride,
                           activation: g.activation)
    // Band edges fall on multiples of every chunk's tile, so that no tile is cut short.
    var quantum = 1
    for chunk in 0 ..< chunks {
        quantum = leastCommonMultiple(quantum, pointwiseTilePixels(width: chunkBlocks(chunk).width, half: half && chunk == chunks - 1,
                                                                   epilogue: pointwiseEpilogue(g.activation)))
    }
    let bands = PointwiseBands(pixels: pixels, quantum: quantum, threads: threads,
                               flopsPerQuantum: 2 * quantum * cout * g.inputChannels)
    let items = bands.count * chunks
    Parallel.forEach(count: items, threads: bands.parts, minimumPerPart: items / bands.parts) { range in
        for item in range {
            let (start, end) = bands.pixels(item / chunks)
            let chunk = item % chunks, (width, block) = chunkBlocks(chunk)
            pointwiseChunk(job, start, end, block, width: width, half: half && chunk == chunks &- 1)
        }
    }
}

/// How `runPointwise` cuts N·H·W pixels into bands: `count` bands, a multiple of the `parts` the
/// work is split into, of nearly equal whole multiples of `quantum` pixels (the last band may end
/// short, at the last pixel), each at most about `pointwiseBandPixels`. With the ceil-div split of
/// bands × chunks every part gets whole bands and the parts' pixel counts differ by at most one
/// quantum: a 16×16 map in 8-pixel tiles splits 128 : 128 on 2 threads (96-pixel bands gave 3 items,
/// 192 : 64), an 8×8 map in 6-pixel tiles 30 : 34 (one item before).
private struct PointwiseBands {
    let pixels: Int
    let quantum: Int
    /// Quanta in all pixels (the last one may be partial).
    let quanta: Int
    /// Parallel parts (≥ 1) the bands are made for.
    let parts: Int
    /// Bands (a multiple of `parts`).
    let count: Int

    init(pixels: Int, quantum: Int, threads: Int, flopsPerQuantum: Int) {
        self.pixels = pixels
        self.quantum = quantum
        quanta = (pixels + quantum - 1) / quantum
        parts = WorkGate.parts(threads: threads, items: quanta, flopsPerItem: flopsPerQuantum)
        let quantaPerBand = max(1, pointwiseBandPixels / quantum)
        count = parts * ((quanta + parts * quantaPerBand - 1) / (parts * quantaPerBand))
    }

    /// Pixels `start ..< end` of band `band`.
    @inline(__always)
    func pixels(_ band: Int) -> (start: Int, end: Int) {
        let first = band &* quanta / count, last = (band &+ 1) &* quanta / count
        return (first &* quantum, min(last &* quantum, pixels))
    }
}

/// The pointwise tiles' epilogue for `activation`: 0 none (also sigmoid, applied to the stored
/// sums afterwards), 1 ReLU, 2 ReLU6, 3 hard-swish.
@inline(__always)
private func pointwiseEpilogue(_ activation: Activation) -> Int {
    switch activation {
    case .none, .sigmoid: 0
    case .relu: 1
    case .relu6: 2
    case .hardswish: 3
    }
}

/// Full blocks in the widest chunk: 4 with AVX-512's 32 registers, 1 with AVX2's 16 (see
/// `pointwiseTilePixels`).
private let pointwiseWidestChunk = registerVectors >= 32 ? 4 : 1

/// The pixels of the tile for a chunk of `width` full blocks (plus a half block when `half`) with
/// epilogue `epilogue`: the one tile-size rule, used to pick the tile and to cut bands on tile
/// edges. AVX-512: at most 24 accumulators (fewer with ReLU6 / hard-swish, whose constants and
/// temporaries need registers) and at most 8 pixels: larger tiles kept their accumulators on the
/// stack in the generated code (12- and 16-pixel tiles: the accumulator array's initialiser was not
/// inlined). AVX2 (chunks of one block): 12 accumulator registers of 16, the rest for the block's
/// weights and a broadcast input; a 3-pixel tile of two blocks (4 weight registers) spilled one
/// accumulator every channel and ran at half the speed. SSE2 baseline (16 registers of 4 floats, a
/// block in 4): 2 pixels of one block, or 1 pixel of a block and a half (6 accumulator registers).
@inline(__always)
private func pointwiseTilePixels(width: Int, half: Bool, epilogue: Int) -> Int {
    if registerVectors < 8 { return half ? 1 : 2 }
    if registerVectors < 32 { return half ? 3 : 6 }
    switch (width, half) {
    case (4, false): return epilogue <= 1 ? 6 : 4
    case (4, true): return 4
    case (2, false): return epilogue <= 2 ? 8 : 6
    case (2, true): return 6
    default: return 8
    }
}

/// The least common multiple of two positive integers.
private func leastCommonMultiple(_ a: Int, _ b: Int) -> Int {
    var x = a, y = b
    while y != 0 { (x, y) = (y, x % y) }
    return a / x * b
}

/// Pixels `start ..< end` of the chunk of `width` full blocks from `block`, plus the half block after
/// them. The activation and the input depth become compile-time constants here; sigmoid (whose lanes
/// go through an out-of-line call that would keep a tile's accumulators in memory) is applied to the
/// stored sums afterwards, with the same bits as in a tile.
@inline(__always)
private func pointwiseChunk(_ job: PointwiseJob, _ start: Int, _ end: Int, _ block: Int, width: Int, half: Bool) {
    switch pointwiseEpilogue(job.activation) {
    case 1: pointwiseChunk(job, start, end, block, width: width, half: half, Epilogue<1>.self)
    case 2: pointwiseChunk(job, start, end, block, width: width, half: half, Epilogue<2>.self)
    case 3: pointwiseChunk(job, start, end, block, width: width, half: half, Epilogue<3>.self)
    default: pointwiseChunk(job, start, end, block, width: width, half: half, Epilogue<0>.self)
    }
    if job.activation == .sigmoid {
        let first = block &* vectorWidth
        let count = min(job.outputChannels &- first, (width &+ (half ? 1 : 0)) &* vectorWidth)
        for px in start ..< end {
            Activation.sigmoid.apply(inPlace: job.output + (px &* job.outputChannels &+ first), count: count)
        }
    }
}

/// A compile-time activation: 0 none, 1 relu, 2 relu6, 3 hardswish.
private enum Epilogue<let A: Int> {}

/// A compile-time input depth (0 = the sources' channel counts).
private enum Depth<let K: Int> {}

@inline(__always)
private func pointwiseChunk<let A: Int>(_ job: PointwiseJob, _ start: Int, _ end: Int, _ block: Int,
                                        width: Int, half: Bool, _: Epilogue<A>.Type) {
    switch job.sources.count == 1 ? job.depth : 0 {
    case 16: pointwiseChunk(job, start, end, block, width: width, half: half, Depth<16>.self, Epilogue<A>.self)
    case 24: pointwiseChunk(job, start, end, block, width: width, half: half, Depth<24>.self, Epilogue<A>.self)
    case 32: pointwiseChunk(job, start, end, block, width: width, half: half, Depth<32>.self, Epilogue<A>.self)
    default: pointwiseChunk(job, start, end, block, width: width, half: half, Depth<0>.self, Epilogue<A>.self)
    }
}

@inline(__always)
private func pointwiseChunk<let K: Int, let A: Int>(_ job: PointwiseJob, _ start: Int, _ end: Int, _ block: Int,
                                                    width: Int, half: Bool, _: Depth<K>.Type, _: Epilogue<A>.Type) {
    // The tile's pixel count comes from the one rule (`pointwiseTilePixels`); this switch only
    // names the tile type for each (width, half block, pixels) it can answer.
    switch (width, half, pointwiseTilePixels(width: width, half: half, epilogue: A)) {
    case (4, false, 6): pointwiseBand(job, start, end, block, PointwiseTile<K, 6, 4, 0, A>.self)
    case (4, false, 4): pointwiseBand(job, start, end, block, PointwiseTile<K, 4, 4, 0, A>.self)
    case (4, true, 4): pointwiseBand(job, start, end, block, PointwiseTile<K, 4, 4, 1, A>.self)
    case (2, false, 8): pointwiseBand(job, start, end, block, PointwiseTile<K, 8, 2, 0, A>.self)
    case (2, false, 6): pointwiseBand(job, start, end, block, PointwiseTile<K, 6, 2, 0, A>.self)
    case (2, true, 6): pointwiseBand(job, start, end, block, PointwiseTile<K, 6, 2, 1, A>.self)
    case (1, false, 8): pointwiseBand(job, start, end, block, PointwiseTile<K, 8, 1, 0, A>.self)
    case (1, true, 8): pointwiseBand(job, start, end, block, PointwiseTile<K, 8, 1, 1, A>.self)
    // AVX2 (see `pointwiseTilePixels`).
    case (1, false, 6): pointwiseBand(job, start, end, block, PointwiseTile<K, 6, 1, 0, A>.self)
    case (1, true, 3): pointwiseBand(job, start, end, block, PointwiseTile<K, 3, 1, 1, A>.self)
#if !(LIFT_FMA || arch(arm64))
    // The SSE2 baseline.
    case (1, false, 2): pointwiseBand(job, start, end, block, PointwiseTile<K, 2, 1, 0, A>.self)
    case (1, true, 1): pointwiseBand(job, start, end, block, PointwiseTile<K, 1, 1, 1, A>.self)
#endif
    case let (width, half, pixels):
        preconditionFailure("no pointwise tile of \(pixels) pixels for \(width) blocks (half block: \(half))")
    }
}

/// Pixels `start ..< end` in tiles of `P`, the rest one pixel at a time.
@inline(never)
private func pointwiseBand<let K: Int, let P: Int, let F: Int, let H: Int, let A: Int>(
    _ job: PointwiseJob, _ start: Int, _ end: Int, _ block: Int, _: PointwiseTile<K, P, F, H, A>.Type
) {
    var px = start
    while px &+ P <= end {
        pointwiseTile(job, px, block, PointwiseTile<K, P, F, H, A>.self)
        px &+= P
    }
    while px < end {
        pointwiseTile(job, px, block, PointwiseTile<K, 1, F, H, A>.self)
        px &+= 1
    }
}

/// The activation `A` of `Epilogue` (a compile-time constant, so the switch folds away).
@_transparent
private func pointwiseActivation<let A: Int>(_ x: Vector, _: Epilogue<A>.Type) -> Vector {
    switch A {
    case 1: return Activation.relu.apply(x)
    case 2: return Activation.relu6.apply(x)
    case 3: return Activation.hardswish.apply(x)
    default: return x
    }
}

/// Output pixels `px ..< px+P`, channels of blocks `block ..< block+F` and the half block after them.
@inline(__always)
private func pointwiseTile<let K: Int, let P: Int, let F: Int, let H: Int, let A: Int>(
    _ job: PointwiseJob, _ px: Int, _ block: Int, _: PointwiseTile<K, P, F, H, A>.Type
) {
    let blockStride = job.blockStride
    let weights = job.weights + block &* blockStride, bias = job.bias + block &* vectorWidth
    var acc = InlineArray<P, InlineArray<F, Vector>>(repeating: InlineArray<F, Vector>(repeating: Vector()))
    var halves = InlineArray<P, InlineArray<H, HalfVector>>(repeating: InlineArray<H, HalfVector>(repeating: HalfVector()))
    for f in 0 ..< F {
        let b = loadVector(bias + f &* vectorWidth)
        for p in 0 ..< P { acc[p][f] = b }
    }
    for h in 0 ..< H {
        let b = loadHalfVector(bias + (F &+ h) &* vectorWidth)
        for p in 0 ..< P { halves[p][h] = b }
    }
    if K > 0 {
        pointwiseProducts(&acc, &halves, x: job.input + px &* K, depth: K, weights: weights, blockStride)
    } else {
        var w = weights
        for source in job.sources {
            let channels = source.channels
            pointwiseProducts(&acc, &halves, x: source.data + px &* channels, depth: channels, weights: w, blockStride)
            w += channels &* vectorWidth
        }
    }
    let stride = job.outputChannels
    let out = job.output + (px &* stride &+ block &* vectorWidth)
    // The epilogue's loops must unroll so that the accumulators stay in registers: whole-vector
    // stores only (channel counts that need lane-masked stores run in `runDirect`), pixels in groups of 4.
    for f in 0 ..< F {
        for q in 0 ..< P / 4 {
            for r in 0 ..< 4 {
                let p = q &* 4 &+ r
                storeVector(pointwiseActivation(acc[p][f], Epilogue<A>.self), out + (p &* stride &+ f &* vectorWidth))
            }
        }
        for p in P / 4 * 4 ..< P {
            storeVector(pointwiseActivation(acc[p][f], Epilogue<A>.self), out + (p &* stride &+ f &* vectorWidth))
        }
    }
    for h in 0 ..< H {
        for p in 0 ..< P {
            // The activation on 16 lanes (the upper 8 unused), so every lane gets `apply`'s exact bits.
            let value = pointwiseActivation(Vector(lowHalf: halves[p][h], highHalf: HalfVector()), Epilogue<A>.self)
            UnsafeMutableRawPointer(out + (p &* stride &+ (F &+ h) &* vectorWidth)).storeBytes(of: value.lowHalf, as: HalfVector.self)
        }
    }
}

/// Adds the products of `depth` input channels (pixel p's at `x + p·depth`) and their weights (channel
/// c's at `weights + 16c`, block f's `blockStride` further) to the accumulators, channel by channel.
@inline(__always)
private func pointwiseProducts<let P: Int, let F: Int, let H: Int>(
    _ acc: inout InlineArray<P, InlineArray<F, Vector>>, _ halves: inout InlineArray<P, InlineArray<H, HalfVector>>,
    x: UnsafePointer<Float>, depth: Int, weights: UnsafePointer<Float>, _ blockStride: Int
) {
    for ci in 0 ..< depth {
        let w = weights + ci &* vectorWidth
        for f in 0 ..< F {
            let weight = loadVector(w + f &* blockStride)
            for p in 0 ..< P { acc[p][f] = multiplyAdd(Vector(repeating: x[p &* depth &+ ci]), weight, acc[p][f]) }
        }
        for h in 0 ..< H {
            let weight = loadHalfVector(w + (F &+ h) &* blockStride)
            for p in 0 ..< P { halves[p][h] = multiplyAdd(HalfVector(repeating: x[p &* depth &+ ci]), weight, halves[p][h]) }
        }
    }
}

/// Eight lanes: the accumulator of a half block.
private typealias HalfVector = SIMD8<Float>

/// Loads 8 consecutive floats (no alignment needed).
@inline(__always)
private func loadHalfVector(_ pointer: UnsafePointer<Float>) -> HalfVector {
    UnsafeRawPointer(pointer).loadUnaligned(as: HalfVector.self)
}
