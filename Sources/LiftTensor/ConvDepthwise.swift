// Depthwise convolution (groups = Cin = Cout): channels are the vector lanes, each output row is a
// parallel item. 3×3 and 5×5 kernels at dilation 1 on rows of 8+ outputs — the layers of
// MobileNet-style networks — run the row-window kernels: `ConvDepthwiseWindow.swift` (packed rows) at
// stride 1, `ConvDepthwiseStrided.swift` (the tensor read directly) at stride 2 and, for the channel
// counts it is compiled for (`hasCompiledChannelCount`), at stride 1 too. Other kernels gather one vector per tap here (`depthwiseGather`). Every
// path sums bias, then kernel rows, then kernel columns in order; padded columns contribute zeros,
// padded rows are skipped.

import LiftParallel

/// Widest output row the row-window kernels take: their ring of packed rows costs about
/// (Kh + 2) · width · 64 bytes per parallel part whatever the channel count (3.7 MB at 8192 for
/// 5×5), so wider rows, which no photo model has, take the gather path (same sums, same order).
let maxWindowRowWidth = 8192

/// Runs a depthwise convolution; `geometry` fixes every size.
func runDepthwise(_ g: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, threads: Int) {
    let rows = g.batch * g.outputHeight
    // Memory-bound: a row reads about strideY input rows and writes one output row.
    let bytesPerRow = 4 * g.outputChannels * (g.outputWidth + g.strideY * g.inputWidth)
    let minimumItems = WorkGate.minimumItems(bytesPerItem: bytesPerRow)
    let window = g.dilationX == 1 && g.dilationY == 1 && (windowTile ... maxWindowRowWidth).contains(g.outputWidth)
        ? (g.kernelHeight, g.kernelWidth, g.strideX, hasCompiledChannelCount(g.inputChannels)) : (0, 0, 0, false)
    Parallel.forEach(count: rows, threads: threads, minimumPerPart: minimumItems) { range in
        switch window {
        case (3, 3, 1, false): depthwiseWindowRows(g, input, output, range, Window<3, 3>.self)
        case (5, 5, 1, false): depthwiseWindowRows(g, input, output, range, Window<5, 5>.self)
        default:
            for row in range {
                let b = row / g.outputHeight, oy = row % g.outputHeight
                switch window {
                case (3, 3, 1, true): depthwiseDirectRow(g, input, output, b, oy, StridedWindow<3, 3, 1, 0>.self)
                case (5, 5, 1, true): depthwiseDirectRow(g, input, output, b, oy, StridedWindow<5, 5, 1, 0>.self)
                case (3, 3, 2, _): depthwiseDirectRow(g, input, output, b, oy, StridedWindow<3, 3, 2, 0>.self)
                case (5, 5, 2, _): depthwiseDirectRow(g, input, output, b, oy, StridedWindow<5, 5, 2, 0>.self)
                default:
                    switch (g.kernelHeight, g.kernelWidth) {
                    case (3, 3): depthwiseRow(g, input, output, b, oy, KernelSize<3, 3>.self)
                    case (5, 5): depthwiseRow(g, input, output, b, oy, KernelSize<5, 5>.self)
                    default: depthwiseRow(g, input, output, b, oy, KernelSize<0, 0>.self)
                    }
                }
            }
        }
    }
}

/// A kernel size fixed at compile time so tap loops unroll; `KernelSize<0, 0>` means "read it from
/// the geometry at run time".
enum KernelSize<let KH: Int, let KW: Int> {}

/// One output row: tiles of 8 pixels (then single pixels), each through all 16-channel blocks, so
/// memory is walked in address order.
private func depthwiseRow<let KH: Int, let KW: Int>(_ g: ConvGeometry, _ input: UnsafePointer<Float>,
                                                    _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int,
                                                    _: KernelSize<KH, KW>.Type) {
    let kernelHeight = KH > 0 ? KH : g.kernelHeight, kernelWidth = KW > 0 ? KW : g.kernelWidth
    let channelBlocks = (g.outputChannels &+ vectorWidth &- 1) / vectorWidth
    var ox = 0
    while ox &+ 8 <= g.outputWidth {
        for block in 0 ..< channelBlocks {
            depthwiseTile(g, input, output, b, oy, ox, block, kernelHeight, kernelWidth, Tile<8, 1>.self, KernelSize<KH, KW>.self)
        }
        ox &+= 8
    }
    while ox < g.outputWidth {
        for block in 0 ..< channelBlocks {
            depthwiseTile(g, input, output, b, oy, ox, block, kernelHeight, kernelWidth, Tile<1, 1>.self, KernelSize<KH, KW>.self)
        }
        ox &+= 1
    }
}

/// Pixels `ox ..< ox+P` of row `oy`, channels `16·channelBlock ..< +16`, through `depthwiseGather`
/// (which stores its own results so that its accumulators stay in registers).
@inline(__always)
private func depthwiseTile<let P: Int, let KH: Int, let KW: Int>(
    _ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int, _ ox: Int,
    _ channelBlock: Int, _ kernelHeight: Int, _ kernelWidth: Int, _ tile: Tile<P, 1>.Type, _ size: KernelSize<KH, KW>.Type
) {
    let c0 = channelBlock &* vectorWidth
    let ix0 = ox &* g.strideX &- g.padLeft
    let out = output + (((b &* g.outputHeight &+ oy) &* g.outputWidth &+ ox) &* g.inputChannels &+ c0)
    depthwiseGather(g, input, out, b, oy, ix0, c0, kernelHeight, kernelWidth, tile, size)
}

/// Stores `acc` (after the activation) as `P` pixels of channels `c0 ..< c0+16` from `out` on.
@inline(__always)
private func storeDepthwise<let P: Int>(_ g: ConvGeometry, _ acc: InlineArray<P, Vector>, _ out: UnsafeMutablePointer<Float>,
                                        _ c0: Int) {
    let channels = g.inputChannels, lanes = min(vectorWidth, channels &- c0)
    for p in 0 ..< P { storeVector(g.activation.apply(acc[p]), out + (p &* channels), lanes: lanes) }
}

/// Any tile: every tap loads its own input vector; padded columns read the zero row, padded rows are
/// skipped (the same sums, in the same order, as `depthwiseWindowRow`). With a compile-time kernel size
/// the tap loops unroll; a tile wholly inside the input's width tests no column.
@inline(never)
private func depthwiseGather<let P: Int, let KH: Int, let KW: Int>(
    _ g: ConvGeometry, _ input: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int, _ ix0: Int,
    _ c0: Int, _ runtimeKernelHeight: Int, _ runtimeKernelWidth: Int, _: Tile<P, 1>.Type, _: KernelSize<KH, KW>.Type
) {
    let kernelHeight = KH > 0 ? KH : runtimeKernelHeight, kernelWidth = KW > 0 ? KW : runtimeKernelWidth
    let channels = g.inputChannels, padded = roundUpToVector(channels)
    let imageBase = input + (b &* g.inputHeight &* g.inputWidth &* channels &+ c0)
    let inside = ix0 >= 0 && ix0 &+ (P &- 1) &* g.strideX &+ (kernelWidth &- 1) &* g.dilationX < g.inputWidth
    let pixelStep = g.strideX &* channels
    var acc = InlineArray<P, Vector>(repeating: loadVector(g.packed.bias + c0))
    for ky in 0 ..< kernelHeight {
        let iy = oy &* g.strideY &- g.padTop &+ ky &* g.dilationY
        if iy < 0 || iy >= g.inputHeight { continue }
        let rowBase = imageBase + (iy &* g.inputWidth &* channels)
        let rowWeights = g.packed.weights + (c0 &+ ky &* kernelWidth &* padded)
        if inside {
            for kx in 0 ..< kernelWidth {
                let weight = loadVector(rowWeights + (kx &* padded))
                let first = rowBase + ((ix0 &+ kx &* g.dilationX) &* channels)
                for p in 0 ..< P { acc[p] = multiplyAdd(loadVector(first + (p &* pixelStep)), weight, acc[p]) }
            }
            continue
        }
        for kx in 0 ..< kernelWidth {
            let weight = loadVector(rowWeights + (kx &* padded))
            for p in 0 ..< P {
                let ix = ix0 &+ p &* g.strideX &+ kx &* g.dilationX
                let source = ix >= 0 && ix < g.inputWidth ? rowBase + (ix &* channels) : g.packed.zeroRow
                acc[p] = multiplyAdd(loadVector(source), weight, acc[p])
            }
        }
    }
    storeDepthwise(g, acc, out, c0)
}
