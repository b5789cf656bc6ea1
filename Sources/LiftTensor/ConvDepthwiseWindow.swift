// The depthwise kernel for 3×3 and 5×5 kernels at stride 1 and dilation 1 (MobileNet-style layers)
// on output rows at least 8 pixels wide, unless the channel count has a compiled direct kernel
// (`hasCompiledChannelCount`: the input rows are as good as packed rows then, `ConvDepthwiseStrided.swift`). A part of output rows runs one 16-channel
// block at a time. Each input row the block needs is copied once into a small ring of packed rows —
// `[column][16 lanes]`, zeros in the padded columns — so tiles address their inputs at constant
// offsets from one pointer (no per-column registers, which spilled, and no edge tests), and every
// input vector is packed once however many output rows read it. Tiles of 8 (AVX2: 4) output pixels keep their
// accumulators in registers; each sums bias, then kernel rows (padded rows skipped), then kernel
// columns — the order of every depthwise path — and the bits depend only on the pixel, never on how
// rows are split between threads. (Packing the next row's inputs a few columns per tile, to overlap
// their loads with the FMAs, measured no faster.)

/// A kernel size fixed at compile time.
enum Window<let KH: Int, let KW: Int> {}

/// Output pixels per tile: independent accumulator chains that cover the FMA latency and stay in
/// registers, 8 on AVX-512, 4 on AVX2 (where a `Vector` takes two of the 16 registers, and 8-pixel
/// tiles kept their accumulators on the stack) and 2 on the SSE2 baseline (four registers a `Vector`).
#if LIFT_AVX512
let windowTile = 8
typealias WindowAccumulators = InlineArray<8, Vector>
#elseif LIFT_FMA || arch(arm64)
let windowTile = 4
typealias WindowAccumulators = InlineArray<4, Vector>
#else
let windowTile = 2
typealias WindowAccumulators = InlineArray<2, Vector>
#endif

/// Output rows `items` (item = `b · outputHeight + oy`) of a depthwise convolution with stride 1 (in
/// x), dilation 1, kernel `KH × KW` and `outputWidth ≥ 8`.
@inline(never)
func depthwiseWindowRows<let KH: Int, let KW: Int>(
    _ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ items: Range<Int>,
    _ window: Window<KH, KW>.Type
) {
    precondition(g.outputWidth >= windowTile && g.strideX == 1 && g.dilationX == 1 && g.dilationY == 1 && KH &+ 2 <= 7,
                 "depthwise window kernel: unsupported geometry")
    // Packed columns 0 ..< packedWidth hold input columns −padLeft ..< −padLeft + packedWidth: every
    // column a tile reads (the last tile ends at the row's last output).
    let packedWidth = g.outputWidth &- 1 &+ KW
    let ringRows = KH &+ 2  // one output row's rows plus the next one's at vertical stride ≤ 2
    withUnsafeTemporaryAllocation(of: Vector.self, capacity: ringRows &* packedWidth) { buffer in
        guard let base = buffer.baseAddress else { preconditionFailure("depthwise window kernel: empty ring") }
        var c0 = 0
        while c0 < g.inputChannels {
            // The input row (b · inputHeight + iy) each of the ≤ 7 ring slots holds; −1 = none.
            var slotRow = InlineArray<7, Int>(repeating: -1)
            for item in items {
                let b = item / g.outputHeight, oy = item % g.outputHeight
                let top = oy &* g.strideY &- g.padTop
                // Kernel rows inside the input: firstRow ..< endRow.
                let firstRow = max(0, -top), endRow = max(firstRow, min(KH, g.inputHeight &- top))
                var rows = InlineArray<KH, UnsafePointer<Vector>>(repeating: UnsafePointer(base))
                for ky in firstRow ..< endRow {
                    let key = b &* g.inputHeight &+ top &+ ky, slot = key % ringRows
                    let packed = base + slot &* packedWidth
                    if slotRow[slot] != key {
                        packRow(g, input + (key &* g.inputWidth &* g.inputChannels &+ c0), into: packed, width: packedWidth)
                        slotRow[slot] = key
                    }
                    rows[ky] = UnsafePointer(packed)
                }
                let out = output + (item &* g.outputWidth &* g.inputChannels &+ c0)
                windowRow(g, rows, kernelRows: firstRow ..< endRow, out, c0, window)
            }
            c0 &+= vectorWidth
        }
    }
}

/// Copies channels `c0 ..< c0+16` of one input row (`source` = its column 0, channel c0) as `width`
/// packed columns: packed column x holds input column x − padLeft, zeros outside the input.
@inline(__always)
private func packRow(_ g: ConvGeometry, _ source: UnsafePointer<Float>, into packed: UnsafeMutablePointer<Vector>, width: Int) {
    let first = min(g.padLeft, width), end = max(first, min(width, g.padLeft &+ g.inputWidth))
    for x in 0 ..< first { packed[x] = Vector() }
    var pointer = source + (first &- g.padLeft) &* g.inputChannels
    for x in first ..< end {
        packed[x] = loadVector(pointer)
        pointer += g.inputChannels
    }
    for x in end ..< width { packed[x] = Vector() }
}

/// One output row of one channel block from its packed kernel rows `rows[kernelRows]`.
@inline(__always)
private func windowRow<let KH: Int, let KW: Int>(
    _ g: ConvGeometry, _ rows: InlineArray<KH, UnsafePointer<Vector>>, kernelRows: Range<Int>,
    _ out: UnsafeMutablePointer<Float>, _ c0: Int, _: Window<KH, KW>.Type
) {
    let channels = g.inputChannels, padded = roundUpToVector(channels), lanes = min(vectorWidth, channels &- c0)
    let bias = loadVector(g.packed.bias + c0), weights = g.packed.weights + c0
    var ox = 0
    while ox < g.outputWidth {
        ox = min(ox, g.outputWidth &- windowTile)  // the last tile ends at the row's end (same bits twice)
        var acc = WindowAccumulators(repeating: bias)
        var ky = kernelRows.lowerBound
        while ky < kernelRows.upperBound {
            let row = rows[ky] + ox, rowWeights = weights + ky &* KW &* padded
            var taps = InlineArray<KW, Vector>(repeating: Vector())
            for kx in 0 ..< KW { taps[kx] = loadVector(rowWeights + kx &* padded) }
            // Input column j feeds pixels j − kx: each column is loaded once. Two loops of at most 8
            // columns, because LLVM fully unrolls (folding the conditions) only loops of ≤ 10 trips;
            // unrolled, `acc` is indexed by constants only and stays in registers.
            for j in 0 ..< windowTile { addColumn(&acc, row[j], column: j, taps) }
            for j in windowTile ..< windowTile &+ KW &- 1 { addColumn(&acc, row[j], column: j, taps) }
            ky &+= 1
        }
        storeWindow(&acc, out + ox &* channels, channels: channels, lanes: lanes, g.activation)
        ox &+= windowTile
    }
}

/// Adds input column `j` of a tile times tap `kx` to every pixel `p = j − kx` of the tile, `kx`
/// ascending (so each pixel sums its taps in `kx` order).
@inline(__always)
private func addColumn<let KW: Int>(_ acc: inout WindowAccumulators, _ x: Vector, column j: Int, _ taps: InlineArray<KW, Vector>) {
    for kx in 0 ..< KW {
        let p = j &- kx
        if p >= 0 && p < windowTile { acc[p] = multiplyAdd(x, taps[kx], acc[p]) }
    }
}

/// Applies the activation to the `windowTile` pixels of `acc` and stores them `channels` floats apart, `lanes`
/// lanes each. The activation is chosen once per tile and every loop has a small body, so the loops
/// unroll and `acc` is only ever indexed by constants.
@inline(__always)
func storeWindow(_ acc: inout WindowAccumulators, _ out: UnsafeMutablePointer<Float>, channels: Int, lanes: Int,
                 _ activation: Activation) {
    switch activation {
    case .none: break
    case .relu: for p in 0 ..< windowTile { acc[p] = Activation.relu.apply(acc[p]) }
    case .relu6: for p in 0 ..< windowTile { acc[p] = Activation.relu6.apply(acc[p]) }
    case .hardswish: for p in 0 ..< windowTile { acc[p] = Activation.hardswish.apply(acc[p]) }
    case .sigmoid: for p in 0 ..< windowTile { acc[p] = Activation.sigmoid.apply(acc[p]) }
    }
    if lanes == vectorWidth {
        for p in 0 ..< windowTile { storeVector(acc[p], out + p &* channels) }
    } else if lanes == 8 {  // the last block of 24, 72 or 88 channels
        for p in 0 ..< windowTile { UnsafeMutableRawPointer(out + p &* channels).storeBytes(of: acc[p].lowHalf, as: SIMD8<Float>.self) }
    } else {
        for p in 0 ..< windowTile { storeLanes(acc[p], out + p &* channels, lanes: lanes) }
    }
}

/// `storeVector(_:_:lanes:)` out of line, so that a loop of them stays small enough to unroll.
@inline(never)
private func storeLanes(_ value: Vector, _ pointer: UnsafeMutablePointer<Float>, lanes: Int) {
    storeVector(value, pointer, lanes: lanes)
}
