// The depthwise row-window kernel at stride 2 (3×3 and 5×5, dilation 1, rows of 8+ outputs): tiles
// of 8 output pixels read their inputs straight from the tensor. At stride 2 an input row serves only
// 1–2 output rows, so packing it first (as `ConvDepthwiseWindow.swift` does at stride 1) costs more
// than it saves: 33 % instead of 58 % of copy bandwidth on MediaPipe selfie's 128²×16 layer. For the
// channel counts of the selfie and subject models the kernel is compiled with the pixel stride a
// constant, so every input of a tile is at a constant offset from one pointer (with a run-time stride
// the 10–19 column offsets each take a register and spill); the stride-1 layers with those counts run
// here too, their input rows then as good as packed rows except for the padded edges (selfie's
// 32²×88 layer: 27 → 41 % of copy, its 64²×72 stride-2 layer 48 → 59 %).

/// A kernel size, horizontal stride and channel count (0 = the geometry's) fixed at compile time.
enum StridedWindow<let KH: Int, let KW: Int, let S: Int, let C: Int> {}

/// The channel counts with a compiled row kernel: the cases of `depthwiseDirectRow` (keep in step).
func hasCompiledChannelCount(_ channels: Int) -> Bool {
    switch channels {
    case 16, 24, 72, 88, 96, 128, 192, 256, 384, 512: true
    default: false
    }
}

/// Output row `oy` of image `b` through `depthwiseStridedRow`, compiled for the tensor's channel
/// count when `hasCompiledChannelCount` says so, else with the run-time count (`window`'s 0).
@inline(__always)
func depthwiseDirectRow<let KH: Int, let KW: Int, let S: Int>(
    _ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int,
    _ window: StridedWindow<KH, KW, S, 0>.Type
) {
    switch g.inputChannels {
    case 16: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 16>.self)
    case 24: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 24>.self)
    case 72: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 72>.self)
    case 88: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 88>.self)
    case 96: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 96>.self)
    case 128: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 128>.self)
    case 192: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 192>.self)
    case 256: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 256>.self)
    case 384: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 384>.self)
    case 512: depthwiseStridedRow(g, input, output, b, oy, StridedWindow<KH, KW, S, 512>.self)
    default: depthwiseStridedRow(g, input, output, b, oy, window)
    }
}

/// Output row `oy` of image `b` in tiles of 8 pixels, each through all channel blocks before the next
/// (whole input pixels are consumed at once: 43 → 47 % of copy on selfie's 64²×72 layer, against one
/// block after another). A tile wholly inside the input tests no column; the others (at most the
/// first and the last of a row) read the zero row outside the input.
@inline(never)
func depthwiseStridedRow<let KH: Int, let KW: Int, let S: Int, let C: Int>(
    _ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int,
    _ window: StridedWindow<KH, KW, S, C>.Type
) {
    // A compile-time channel count puts every input of a tile at a constant offset from one pointer.
    let channels = C > 0 ? C : g.inputChannels, padded = roundUpToVector(channels), width = g.inputWidth
    let rowFloats = width &* channels, top = oy &* g.strideY &- g.padTop
    // Kernel rows inside the input: firstRow ..< endRow (a contiguous run).
    var firstRow = KH, endRow = 0
    for ky in 0 ..< KH {
        let iy = top &+ ky &* g.dilationY
        if iy >= 0 && iy < g.inputHeight {
            firstRow = min(firstRow, ky)
            endRow = ky &+ 1
        }
    }
    if endRow == 0 { firstRow = 0 }  // the whole kernel lies in the padding: the bias alone
    let rowStep = g.dilationY &* rowFloats
    let firstInputRow = input + ((b &* g.inputHeight &+ top &+ firstRow &* g.dilationY) &* rowFloats)
    let outputRow = output + ((b &* g.outputHeight &+ oy) &* g.outputWidth &* channels)
    let span = (windowTile &- 1) &* S &+ KW
    var ox = 0
    while ox < g.outputWidth {
        // The last tile ends at the row's end (recomputing a few pixels: the same bits).
        ox = min(ox, g.outputWidth &- windowTile)
        let ix0 = ox &* S &- g.padLeft
        let inside = ix0 >= 0 && ix0 &+ span <= width
        var c0 = 0
        while c0 < channels {
            let lanes = min(vectorWidth, channels &- c0)
            var acc = WindowAccumulators(repeating: loadVector(g.packed.bias + c0))
            var row = firstInputRow + c0, weights = g.packed.weights + (firstRow &* KW &* padded &+ c0)
            for _ in firstRow ..< endRow {
                if inside {
                    accumulateInside(&acc, row + ix0 &* channels, channels, weights, padded, window)
                } else {
                    accumulateChecked(&acc, row, channels, weights, padded, ix0, width, g.packed.zeroRow, window)
                }
                row += rowStep
                weights += KW &* padded
            }
            storeWindow(&acc, outputRow + (ox &* channels &+ c0), channels: channels, lanes: lanes, g.activation)
            c0 &+= vectorWidth
        }
        ox &+= windowTile
    }
}

/// Adds one kernel row's products to the 8 pixels of `acc` for a tile wholly inside the input (`row`
/// points at its first column), each pixel's taps in `kx` order. With a compile-time channel count,
/// input column j is loaded once and feeds every pixel p with j = p·S + kx, the columns in loops of
/// at most 8, which LLVM unrolls fully (conditions folded, `acc` indexed by constants only, so it
/// stays in registers; longer loops stay rolled): selfie's 128²×16 layer 85 → 100 GFLOP/s. With a
/// run-time channel count that form ran 10–20 % slower than the tap-major nest (one load per FMA).
@inline(__always)
private func accumulateInside<let KH: Int, let KW: Int, let S: Int, let C: Int>(
    _ acc: inout WindowAccumulators, _ row: UnsafePointer<Float>, _ channels: Int, _ rowWeights: UnsafePointer<Float>,
    _ padded: Int, _ window: StridedWindow<KH, KW, S, C>.Type
) {
    if C == 0 {
        for kx in 0 ..< KW {
            let weight = loadVector(rowWeights + kx &* padded)
            for p in 0 ..< windowTile { acc[p] = multiplyAdd(loadVector(row + (p &* S &+ kx) &* channels), weight, acc[p]) }
        }
        return
    }
    let taps = loadTaps(rowWeights, padded, window)
    let span = (windowTile &- 1) &* S &+ KW
    for j in 0 ..< min(span, 8) { addColumn(&acc, loadVector(row + j &* channels), column: j, taps, S) }
    for j in min(span, 8) ..< min(span, 16) { addColumn(&acc, loadVector(row + j &* channels), column: j, taps, S) }
    for j in 16 ..< max(span, 16) { addColumn(&acc, loadVector(row + j &* channels), column: j, taps, S) }
}

/// `accumulateInside` for a tile that reaches past the input's left or right edge: `row` points at
/// column 0, the tile starts at column `ix0`, and columns outside `0 ..< width` read `zeros`.
@inline(__always)
private func accumulateChecked<let KH: Int, let KW: Int, let S: Int, let C: Int>(
    _ acc: inout WindowAccumulators, _ row: UnsafePointer<Float>, _ channels: Int, _ rowWeights: UnsafePointer<Float>,
    _ padded: Int, _ ix0: Int, _ width: Int, _ zeros: UnsafePointer<Float>, _ window: StridedWindow<KH, KW, S, C>.Type
) {
    @inline(__always) func column(_ j: Int) -> Vector {
        let x = ix0 &+ j
        return loadVector(UInt(bitPattern: x) < UInt(width) ? row + x &* channels : zeros)
    }
    if C == 0 {
        for kx in 0 ..< KW {
            let weight = loadVector(rowWeights + kx &* padded)
            for p in 0 ..< windowTile { acc[p] = multiplyAdd(column(p &* S &+ kx), weight, acc[p]) }
        }
        return
    }
    let taps = loadTaps(rowWeights, padded, window)
    let span = (windowTile &- 1) &* S &+ KW
    for j in 0 ..< min(span, 8) { addColumn(&acc, column(j), column: j, taps, S) }
    for j in min(span, 8) ..< min(span, 16) { addColumn(&acc, column(j), column: j, taps, S) }
    for j in 16 ..< max(span, 16) { addColumn(&acc, column(j), column: j, taps, S) }
}

/// The `KW` weight vectors of one kernel row.
@inline(__always)
private func loadTaps<let KH: Int, let KW: Int, let S: Int, let C: Int>(
    _ rowWeights: UnsafePointer<Float>, _ padded: Int, _: StridedWindow<KH, KW, S, C>.Type
) -> InlineArray<KW, Vector> {
    var taps = InlineArray<KW, Vector>(repeating: Vector())
    for kx in 0 ..< KW { taps[kx] = loadVector(rowWeights + kx &* padded) }
    return taps
}

/// Adds input column `j` of a tile times tap `kx` to every pixel `p` with `j = p·S + kx`, `kx`
/// ascending (so each pixel sums its taps in `kx` order).
@inline(__always)
private func addColumn<let KW: Int>(_ acc: inout WindowAccumulators, _ x: Vector, column j: Int, _ taps: InlineArray<KW, Vector>,
                                    _ stride: Int) {
    for kx in 0 ..< KW {
        let d = j &- kx
        if d >= 0 && d % stride == 0 && d / stride < windowTile { acc[d / stride] = multiplyAdd(x, taps[kx], acc[d / stride]) }
    }
}
