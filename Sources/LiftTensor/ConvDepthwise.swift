// Depthwise convolution (groups = Cin = Cout): channels are the vector lanes, each output row is a
// parallel item. 3×3 and 5×5 kernels at horizontal stride 1 or 2 and dilation 1 — the layers of
// MobileNet-style networks — sweep each output row one 16-channel block at a time in tiles of 8
// pixels that load each input vector of a kernel row once, into a register, for every tap that covers
// it (`depthwiseWindowRow`). Other kernels gather one vector per tap (`depthwiseGather`). Every path
// sums bias, then kernel rows, then kernel columns in order; padded columns contribute zeros, padded
// rows are skipped.

import LiftParallel

/// Runs a depthwise convolution; `geometry` fixes every size.
func runDepthwise(_ g: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, threads: Int) {
    let rows = g.batch * g.outputHeight
    // Memory-bound: a row reads about strideY input rows and writes one output row.
    let bytesPerRow = 4 * g.outputChannels * (g.outputWidth + g.strideY * g.inputWidth)
    let minimumItems = WorkGate.minimumItems(bytesPerItem: bytesPerRow)
    let window = g.dilationX == 1 && g.outputWidth >= windowTile ? (g.kernelHeight, g.kernelWidth, g.strideX) : (0, 0, 0)
    Parallel.forEach(count: rows, threads: threads, minimumPerPart: minimumItems) { range in
        for row in range {
            let b = row / g.outputHeight, oy = row % g.outputHeight
            switch window {
            case (3, 3, 1): depthwiseWindowRow(g, input, output, b, oy, Window<3, 3, 1>.self)
            case (3, 3, 2): depthwiseWindowRow(g, input, output, b, oy, Window<3, 3, 2>.self)
            case (5, 5, 1): depthwiseWindowRow(g, input, output, b, oy, Window<5, 5, 1>.self)
            case (5, 5, 2): depthwiseWindowRow(g, input, output, b, oy, Window<5, 5, 2>.self)
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

/// A kernel size and horizontal stride fixed at compile time (horizontal dilation 1).
enum Window<let KH: Int, let KW: Int, let S: Int> {}

/// Pixels per tile of `depthwiseWindowRow`: 8 independent accumulator chains cover the FMA latency.
private let windowTile = 8

/// Output row `oy` of image `b`, one 16-channel block after another (so a block's weights stay in
/// L1 and its pointers in registers), each in tiles of 8 pixels. A tile wholly inside the input tests
/// no column; the others (at most the first and the last of a row) read zeros outside the input and
/// store only the pixels that exist.
@inline(never)
private func depthwiseWindowRow<let KH: Int, let KW: Int, let S: Int>(
    _ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int,
    _ window: Window<KH, KW, S>.Type
) {
    let channels = g.inputChannels, padded = roundUpToVector(channels), width = g.inputWidth
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
    var c0 = 0
    while c0 < channels {
        let lanes = min(vectorWidth, channels &- c0)
        let bias = loadVector(g.packed.bias + c0), zeros = g.packed.zeroRow
        let firstWeights = g.packed.weights + (firstRow &* KW &* padded &+ c0)
        var ox = 0
        while ox < g.outputWidth {
            // The last tile ends at the row's end (recomputing a few pixels: the same bits).
            ox = min(ox, g.outputWidth &- windowTile)
            let ix0 = ox &* S &- g.padLeft
            let inside = ix0 >= 0 && ix0 &+ span <= width
            var acc = InlineArray<8, Vector>(repeating: bias)
            var row = firstInputRow + c0, weights = firstWeights
            for _ in firstRow ..< endRow {
                if inside {
                    accumulateInside(&acc, row + ix0 &* channels, channels, weights, padded, window)
                } else {
                    accumulateChecked(&acc, row, channels, weights, padded, ix0, width, zeros, window)
                }
                row += rowStep
                weights += KW &* padded
            }
            storeWindow(&acc, outputRow + (ox &* channels &+ c0), channels: channels, lanes: lanes, g.activation)
            ox &+= windowTile
        }
        c0 &+= vectorWidth
    }
}

/// Adds one kernel row's products to the 8 pixels of `acc` for a tile wholly inside the input (`row`
/// points at its first column), in `kx` order. The loop nest has constant trip counts and no
/// conditions, so it unrolls fully: every index into `acc` is a constant, which keeps it in registers.
@inline(__always)
private func accumulateInside<let KH: Int, let KW: Int, let S: Int>(
    _ acc: inout InlineArray<8, Vector>, _ row: UnsafePointer<Float>, _ channels: Int, _ rowWeights: UnsafePointer<Float>,
    _ padded: Int, _: Window<KH, KW, S>.Type
) {
    for kx in 0 ..< KW {
        let weight = loadVector(rowWeights + kx &* padded)
        for p in 0 ..< windowTile { acc[p] = acc[p].addingProduct(loadVector(row + (p &* S &+ kx) &* channels), weight) }
    }
}

/// `accumulateInside` for a tile that reaches past the input's left or right edge: `row` points at
/// column 0, the tile starts at column `ix0`, and columns outside `0 ..< width` read `zeros`.
@inline(__always)
private func accumulateChecked<let KH: Int, let KW: Int, let S: Int>(
    _ acc: inout InlineArray<8, Vector>, _ row: UnsafePointer<Float>, _ channels: Int, _ rowWeights: UnsafePointer<Float>,
    _ padded: Int, _ ix0: Int, _ width: Int, _ zeros: UnsafePointer<Float>, _: Window<KH, KW, S>.Type
) {
    for kx in 0 ..< KW {
        let weight = loadVector(rowWeights + kx &* padded)
        for p in 0 ..< windowTile {
            let column = ix0 &+ p &* S &+ kx
            let source = UInt(bitPattern: column) < UInt(width) ? row + column &* channels : zeros
            acc[p] = acc[p].addingProduct(loadVector(source), weight)
        }
    }
}

/// Applies the activation to the 8 pixels of `acc` and stores them `channels` floats apart, `lanes`
/// lanes each. The activation is chosen once per tile and every loop has a small body, so the loops
/// unroll and `acc` is only ever indexed by constants.
@inline(__always)
private func storeWindow(_ acc: inout InlineArray<8, Vector>, _ out: UnsafeMutablePointer<Float>, channels: Int, lanes: Int,
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
                for p in 0 ..< P { acc[p] = acc[p].addingProduct(loadVector(first + (p &* pixelStep)), weight) }
            }
            continue
        }
        for kx in 0 ..< kernelWidth {
            let weight = loadVector(rowWeights + (kx &* padded))
            for p in 0 ..< P {
                let ix = ix0 &+ p &* g.strideX &+ kx &* g.dilationX
                let source = ix >= 0 && ix < g.inputWidth ? rowBase + (ix &* channels) : g.packed.zeroRow
                acc[p] = acc[p].addingProduct(loadVector(source), weight)
            }
        }
    }
    storeDepthwise(g, acc, out, c0)
}
