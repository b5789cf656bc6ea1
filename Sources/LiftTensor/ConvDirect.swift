// The direct NHWC convolution: a tile of P output pixels × B blocks of 16 output channels held in
// SIMD16 accumulators; for every kernel tap and input channel one input value per pixel is broadcast
// and multiplied with B packed 16-wide weight vectors. Padded taps read a zero row, so every tile of a
// given position runs the same instruction sequence whatever the thread split.

import LiftParallel

/// Output-channel blocks per tile: about 12–16 accumulators, few loads per FMA. On AVX2 (16
/// registers of 8 floats) one block, 4 pixels wide (8 registers; 8 pixels spilled, and 6-pixel
/// tiles left more single pixels on U²-Net's 20-wide rows); on the SSE2 baseline (16 registers of 4
/// floats) one block, 2 pixels wide (8 registers).
@inline(__always)
private func tileBlocks(_ blocksPerGroup: Int) -> Int {
    if registerVectors < 32 { return 1 }
    return blocksPerGroup >= 4 ? 4 : (blocksPerGroup >= 2 ? 2 : 1)
}

/// Runs a dense or grouped (not depthwise) convolution; `geometry` fixes every size.
func runDirect(_ geometry: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, threads: Int) {
    var g = geometry
    let pointwise = g.isPointwise
    if pointwise {
        // A 1×1 stride-1 convolution is a GEMM: treat all N·H·W pixels as one long row.
        let pixels = g.batch * g.inputHeight * g.inputWidth
        g.batch = 1; g.inputHeight = 1; g.outputHeight = 1; g.inputWidth = pixels; g.outputWidth = pixels
    }
    let blocks = g.packed.blocksPerGroup
    let chunkWidth = tileBlocks(blocks)
    let chunksPerGroup = blocks / chunkWidth + blocks % chunkWidth
    let chunks = chunksPerGroup * g.packed.groups
    // Work items: (row or 96-pixel band) × channel chunk, row-major so a part keeps its input rows hot.
    let band = pointwise ? 96 : g.outputWidth
    let bandsPerRow = (g.outputWidth + band - 1) / band
    let rows = g.batch * g.outputHeight * bandsPerRow
    let flopsPerItem = 2 * band * min(blocks, chunkWidth) * vectorWidth * g.packed.taps * g.packed.inputChannelsPerGroup
    let minimumItems = WorkGate.minimumItems(flopsPerItem: flopsPerItem)
    let frozen = g
    Parallel.forEach(count: rows * chunks, threads: threads, minimumPerPart: minimumItems) { range in
        for item in range {
            let row = item / chunks, chunk = item % chunks
            let bandIndex = row % bandsPerRow, outRow = row / bandsPerRow
            let group = chunk / chunksPerGroup, inGroup = chunk % chunksPerGroup
            let fullChunks = blocks / chunkWidth
            let start = bandIndex * band, end = min(start + band, frozen.outputWidth)
            let b = outRow / frozen.outputHeight, oy = outRow % frozen.outputHeight
            if inGroup < fullChunks {
                let block = inGroup * chunkWidth
                switch chunkWidth {
                case 4: directRow(frozen, input, output, b, oy, group, block, start, end, pixels: 4, blocks: 4)
                case 2: directRow(frozen, input, output, b, oy, group, block, start, end, pixels: 8, blocks: 2)
                default: directRow(frozen, input, output, b, oy, group, block, start, end, pixels: 8, blocks: 1)
                }
            } else {
                let block = fullChunks * chunkWidth + (inGroup - fullChunks)
                directRow(frozen, input, output, b, oy, group, block, start, end, pixels: 8, blocks: 1)
            }
        }
    }
}

/// One output row segment `ox ∈ start..<end` for channel blocks `block..<block+blocks` of `group`.
@inline(__always)
private func directRow(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                       _ b: Int, _ oy: Int, _ group: Int, _ block: Int, _ start: Int, _ end: Int,
                       pixels: Int, blocks: Int) {
    var ox = start
    switch (pixels, blocks) {
    case (4, 4):
        while ox &+ 4 <= end { directTile(g, input, output, b, oy, ox, group, block, Tile<4, 4>.self); ox &+= 4 }
        while ox < end { directTile(g, input, output, b, oy, ox, group, block, Tile<1, 4>.self); ox &+= 1 }
    case (8, 2):
        while ox &+ 8 <= end { directTile(g, input, output, b, oy, ox, group, block, Tile<8, 2>.self); ox &+= 8 }
        while ox < end { directTile(g, input, output, b, oy, ox, group, block, Tile<1, 2>.self); ox &+= 1 }
    default:
        if registerVectors >= 32 {
            while ox &+ 8 <= end { directTile(g, input, output, b, oy, ox, group, block, Tile<8, 1>.self); ox &+= 8 }
        }
#if LIFT_FMA || arch(arm64)
        while ox &+ 4 <= end { directTile(g, input, output, b, oy, ox, group, block, Tile<4, 1>.self); ox &+= 4 }
#else
        while ox &+ 2 <= end { directTile(g, input, output, b, oy, ox, group, block, Tile<2, 1>.self); ox &+= 2 }
#endif
        while ox < end { directTile(g, input, output, b, oy, ox, group, block, Tile<1, 1>.self); ox &+= 1 }
    }
}

/// A compile-time tile size: `P` output pixels × `B` blocks of 16 output channels.
enum Tile<let P: Int, let B: Int> {}

/// Computes output pixels `ox ..< ox+P` of row `oy` (batch `b`) for blocks `block ..< block+B`.
@inline(__always)
private func directTile<let P: Int, let B: Int>(_ g: ConvGeometry, _ input: UnsafePointer<Float>,
                                                _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int,
                                                _ ox: Int, _ group: Int, _ block: Int, _: Tile<P, B>.Type) {
    let packed = g.packed
    let cinG = packed.inputChannelsPerGroup
    let blockStride = packed.blockStride
    let firstBlock = group &* packed.blocksPerGroup &+ block
    let weightBase = packed.weights + (firstBlock &* blockStride)
    let biasBase = packed.bias + (firstBlock &* vectorWidth)
    var acc = InlineArray<P, InlineArray<B, Vector>>(repeating: InlineArray<B, Vector>(repeating: Vector()))
    for p in 0 ..< P {
        for k in 0 ..< B { acc[p][k] = loadVector(biasBase + (k &* vectorWidth)) }
    }
    let zero = packed.zeroRow
    let ix0 = ox &* g.strideX &- g.padLeft
    let interior = ix0 >= 0 && ix0 &+ (P &- 1) &* g.strideX &+ (g.kernelWidth &- 1) &* g.dilationX < g.inputWidth
    let pixelStride = g.inputChannels
    // In an interior tile of an undilated dense convolution the Kw taps of a kernel row are one
    // contiguous run of Kw·Cin floats in both the input and the packed weights: one segment per row.
    let wholeRow = interior && g.dilationX == 1 && packed.groups == 1
    let segments = wholeRow ? 1 : g.kernelWidth
    let segmentLength = wholeRow ? g.kernelWidth &* cinG : cinG
    for ky in 0 ..< g.kernelHeight {
        let iy = oy &* g.strideY &- g.padTop &+ ky &* g.dilationY
        if iy < 0 || iy >= g.inputHeight { continue }
        let rowBase = input + ((b &* g.inputHeight &+ iy) &* g.inputWidth &* pixelStride &+ group &* cinG)
        for kx in 0 ..< segments {
            var sources = InlineArray<P, UnsafePointer<Float>>(repeating: zero)
            let tapX = ix0 &+ kx &* g.dilationX
            if interior {
                for p in 0 ..< P { sources[p] = rowBase + ((tapX &+ p &* g.strideX) &* pixelStride) }
            } else {
                for p in 0 ..< P {
                    let ix = tapX &+ p &* g.strideX
                    if ix >= 0 && ix < g.inputWidth { sources[p] = rowBase + (ix &* pixelStride) }
                }
            }
            let tapWeights = weightBase + ((ky &* g.kernelWidth &+ kx) &* cinG &* vectorWidth)
            for ci in 0 ..< segmentLength {
                let w = tapWeights + (ci &* vectorWidth)
                for k in 0 ..< B {
                    let weight = loadVector(w + (k &* blockStride))
                    for p in 0 ..< P {
                        acc[p][k] = multiplyAdd(Vector(repeating: sources[p][ci]), weight, acc[p][k])
                    }
                }
            }
        }
    }
    let cpg = packed.outputChannelsPerGroup
    let outBase = output + ((b &* g.outputHeight &+ oy) &* g.outputWidth &+ ox) &* g.outputChannels
        + (group &* cpg &+ block &* vectorWidth)
    let activation = g.activation
    for k in 0 ..< B {
        let lanes = min(vectorWidth, cpg &- (block &+ k) &* vectorWidth)
        for p in 0 ..< P {
            storeVector(activation.apply(acc[p][k]), outBase + (p &* g.outputChannels &+ k &* vectorWidth), lanes: lanes)
        }
    }
}

/// A dense 1×1 stride-1 convolution of the channel concatenation of `sources` (channel counts summing
/// to the layer's input channels), without materialising it: the pixels are one long row, cut into
/// 96-pixel bands × channel chunks as in `runDirect`; input channels are visited source by source in
/// concatenation order, so every output is the same sum, in the same order, as on the joined tensor.
/// `Conv2D` uses it when the output count is not a multiple of 8 (else `runPointwise`).
func runPointwiseConcatenated(_ geometry: ConvGeometry, sources: UnsafeBufferPointer<ConvSource>,
                              output: UnsafeMutablePointer<Float>, threads: Int) {
    let g = geometry
    precondition(g.isPointwise && g.packed.groups == 1, "only a dense 1×1 stride-1 convolution reads concatenated inputs")
    let pixels = g.batch * g.inputHeight * g.inputWidth
    let blocks = g.packed.blocksPerGroup, chunkWidth = tileBlocks(blocks)
    let chunks = blocks / chunkWidth + blocks % chunkWidth
    let band = 96, bands = (pixels + band - 1) / band
    let flopsPerItem = 2 * band * min(blocks, chunkWidth) * vectorWidth * g.packed.inputChannelsPerGroup
    Parallel.forEach(count: bands * chunks, threads: threads, minimumPerPart: WorkGate.minimumItems(flopsPerItem: flopsPerItem)) { range in
        for item in range {
            let start = (item / chunks) * band, end = min(start + band, pixels), chunk = item % chunks
            let fullChunks = blocks / chunkWidth
            var ox = start
            if chunk < fullChunks && chunkWidth == 4 {
                while ox &+ 4 <= end { pointwiseTile(g, sources, output, ox, chunk * 4, Tile<4, 4>.self); ox &+= 4 }
                while ox < end { pointwiseTile(g, sources, output, ox, chunk * 4, Tile<1, 4>.self); ox &+= 1 }
            } else if chunk < fullChunks && chunkWidth == 2 {
                while ox &+ 8 <= end { pointwiseTile(g, sources, output, ox, chunk * 2, Tile<8, 2>.self); ox &+= 8 }
                while ox < end { pointwiseTile(g, sources, output, ox, chunk * 2, Tile<1, 2>.self); ox &+= 1 }
            } else {
                let block = chunk < fullChunks ? chunk : fullChunks * chunkWidth + (chunk - fullChunks)
                while ox &+ 8 <= end { pointwiseTile(g, sources, output, ox, block, Tile<8, 1>.self); ox &+= 8 }
                while ox < end { pointwiseTile(g, sources, output, ox, block, Tile<1, 1>.self); ox &+= 1 }
            }
        }
    }
}

/// Output pixels `ox ..< ox+P` (of all N·H·W) for blocks `block ..< block+B`, reading the input
/// channels from each source in turn; the FMAs are those of `directTile` on the joined input.
@inline(__always)
private func pointwiseTile<let P: Int, let B: Int>(_ g: ConvGeometry, _ sources: UnsafeBufferPointer<ConvSource>,
                                                   _ output: UnsafeMutablePointer<Float>, _ ox: Int, _ block: Int,
                                                   _: Tile<P, B>.Type) {
    let packed = g.packed, blockStride = packed.blockStride
    let weightBase = packed.weights + (block &* blockStride), biasBase = packed.bias + (block &* vectorWidth)
    var acc = InlineArray<P, InlineArray<B, Vector>>(repeating: InlineArray<B, Vector>(repeating: Vector()))
    for p in 0 ..< P {
        for k in 0 ..< B { acc[p][k] = loadVector(biasBase + (k &* vectorWidth)) }
    }
    var firstChannel = 0
    for source in sources {
        let channels = source.channels, pixelBase = source.data + (ox &* channels)
        let tapWeights = weightBase + (firstChannel &* vectorWidth)
        for ci in 0 ..< channels {
            let w = tapWeights + (ci &* vectorWidth)
            for k in 0 ..< B {
                let weight = loadVector(w + (k &* blockStride))
                for p in 0 ..< P {
                    acc[p][k] = multiplyAdd(Vector(repeating: pixelBase[p &* channels &+ ci]), weight, acc[p][k])
                }
            }
        }
        firstChannel &+= channels
    }
    let outBase = output + (ox &* g.outputChannels &+ block &* vectorWidth)
    let activation = g.activation
    for k in 0 ..< B {
        let lanes = min(vectorWidth, g.outputChannels &- (block &+ k) &* vectorWidth)
        for p in 0 ..< P {
            storeVector(activation.apply(acc[p][k]), outBase + (p &* g.outputChannels &+ k &* vectorWidth), lanes: lanes)
        }
    }
}
