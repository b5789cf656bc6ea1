// Winograd F(2×2, 3×3) for dense 3×3 stride-1 convolutions at any dilation (Lavin & Gray 2016).
//
// A tile is 2×2 outputs: rows oy, oy+d and columns ox, ox+d (d = dilation), computed from the 4×4
// input samples at rows oy−pad + {0, d, 2d, 3d} and the same columns. Per tile and channel the
// input is transformed as V = Bᵀ·x·B (adds only), the weights were transformed once at packing as
// U = G·g·Gᵀ, and the 2×2 outputs are Aᵀ·M·A with M[k] = Σ_ci V[k][ci]·U[k][ci] for each of the 16
// components k: 16 small GEMMs over input channels instead of 9 taps × 4 pixels of direct
// multiply-adds, 2.25× fewer multiplies. Tiles run in blocks of `tilesPerBlock` along a tile row:
// input transform into a scratch V[16][tile][Cin], GEMMs (tiles × 16-lane output blocks held in
// SIMD16 accumulators) into M[16][tile][Cout], output transform with bias, activation and an
// optional residual into the output. Work is split by tile row only, each tile row processed in the
// same blocks whatever the split, so results do not depend on the thread count.

/// One NHWC tensor with `channels` per pixel feeding a run of channels: of a convolution's input
/// (several side by side form the input of a convolution fused with the concat before it), or of a
/// concat's output.
struct ConvSource {
    let data: UnsafePointer<Float>
    let channels: Int
}

/// Tiles along one axis of `outputs` outputs at dilation `d`: tile j covers outputs
/// `winogradTileStart(j)` and that plus d, so a period of 2d outputs holds d tiles.
@inline(__always)
func winogradTileCount(outputs: Int, dilation d: Int) -> Int {
    let fullPeriods = outputs / (2 * d)
    return fullPeriods * d + min(d, outputs - fullPeriods * 2 * d)
}

/// First output of tile `j` at dilation `d` (increasing in j).
@inline(__always)
func winogradTileStart(_ j: Int, dilation d: Int) -> Int {
    (j / d) &* (2 &* d) &+ j % d
}

/// Scratch sizes of one Winograd part: V = [16][tiles][vStride], then M = [16][tiles][mStride], each
/// component padded by one vector (`vComponent`, `mComponent` floats apart) so that the 16 streams of
/// a transform do not sit a multiple of 4 KB apart and evict each other from the L1 cache.
private struct WinogradScratch {
    let tilesPerBlock: Int
    let vStride: Int
    let mStride: Int
    let vComponent: Int
    let mComponent: Int

    init(inputChannels: Int, outputBlocks: Int, alignedSources: Bool) {
        // A source's last vector may spill 15 lanes past its channels into the next source's (which
        // overwrites them) or past Cin: one extra vector of room unless every source is 16-aligned.
        vStride = roundUpToVector(inputChannels) + (alignedSources ? 0 : vectorWidth)
        mStride = outputBlocks * vectorWidth
        // About 128 KB of V per block (stays in L2 next to M), a multiple of 8 tiles, 8…64.
        tilesPerBlock = max(8, min(64, 2048 / vStride / 8 * 8))
        vComponent = tilesPerBlock * vStride + vectorWidth
        mComponent = tilesPerBlock * mStride + vectorWidth
    }

    var floats: Int { 16 * (vComponent + mComponent) }
}

/// Runs a 3×3 stride-1 dense convolution by Winograd F(2×2, 3×3). `sources` give the input channels
/// in order (their channel counts sum to `g.inputChannels`); `residual`, if given, has the output's
/// shape and is added after the activation.
func runWinograd(_ g: ConvGeometry, sources: UnsafeBufferPointer<ConvSource>, residual: UnsafePointer<Float>?,
                 output: UnsafeMutablePointer<Float>, threads: Int) {
    precondition(g.kernelHeight == 3 && g.kernelWidth == 3 && g.strideY == 1 && g.strideX == 1 && g.packed.groups == 1,
                 "Winograd F(2×2, 3×3) needs a dense 3×3 stride-1 convolution")
    let blocks = g.packed.blocksPerGroup
    let scratch = WinogradScratch(inputChannels: g.inputChannels, outputBlocks: blocks,
                                  alignedSources: sources.allSatisfy { $0.channels % vectorWidth == 0 })
    let tilesY = winogradTileCount(outputs: g.outputHeight, dilation: g.dilationY)
    let tilesX = winogradTileCount(outputs: g.outputWidth, dilation: g.dilationX)
    let rows = g.batch * tilesY
    let flopsPerRow = 2 * 16 * tilesX * g.inputChannels * blocks * vectorWidth
    let minimumRows = max(1, (1 << 18) / max(flopsPerRow, 1))
    Parallel.forEach(count: rows, threads: threads, minimumPerPart: minimumRows) { range in
        withUnsafeTemporaryAllocation(byteCount: scratch.floats * 4, alignment: 64) { raw in
            guard let base = raw.baseAddress else { preconditionFailure("Winograd scratch allocation failed") }
            let v = base.bindMemory(to: Float.self, capacity: scratch.floats)
            let m = v + 16 * scratch.vComponent
            for row in range {
                let b = row / tilesY, oy = winogradTileStart(row % tilesY, dilation: g.dilationY)
                var first = 0
                while first < tilesX {
                    let count = min(scratch.tilesPerBlock, tilesX - first)
                    winogradInputTransform(g, sources, b, oy, first, count, v, scratch)
                    winogradGEMM(g, count, v, m, scratch)
                    winogradOutputTransform(g, residual, output, b, oy, first, count, m, scratch)
                    first &+= count
                }
            }
        }
    }
}

/// V[k][t][c] = (Bᵀ·x·B)[k] for tiles `first ..< first+count` of the tile row at output row `oy`.
@inline(__always)
private func winogradInputTransform(_ g: ConvGeometry, _ sources: UnsafeBufferPointer<ConvSource>, _ b: Int, _ oy: Int,
                                    _ first: Int, _ count: Int, _ v: UnsafeMutablePointer<Float>, _ s: WinogradScratch) {
    let componentStride = s.vComponent
    let iy0 = oy &- g.padTop
    for t in 0 ..< count {
        let ix0 = winogradTileStart(first &+ t, dilation: g.dilationX) &- g.padLeft
        var offset = 0
        for source in sources {
            let c = source.channels
            var pointers = InlineArray<16, UnsafePointer<Float>>(repeating: g.packed.zeroRow)
            for r in 0 ..< 4 {
                let iy = iy0 &+ r &* g.dilationY
                if iy < 0 || iy >= g.inputHeight { continue }
                let rowBase = source.data + (b &* g.inputHeight &+ iy) &* g.inputWidth &* c
                for col in 0 ..< 4 {
                    let ix = ix0 &+ col &* g.dilationX
                    if ix >= 0 && ix < g.inputWidth { pointers[r &* 4 &+ col] = rowBase + ix &* c }
                }
            }
            let destination = v + (t &* s.vStride &+ offset)
            var ch = 0
            while ch < c {
                var d = InlineArray<16, Vector>(repeating: Vector())
                for i in 0 ..< 16 { d[i] = loadVector(pointers[i] + ch) }
                // Rows: (x0 − x2, x1 + x2, x2 − x1, x1 − x3) along each row, then the same down each column.
                for r in 0 ..< 4 {
                    let x0 = d[r &* 4], x1 = d[r &* 4 &+ 1], x2 = d[r &* 4 &+ 2], x3 = d[r &* 4 &+ 3]
                    d[r &* 4] = x0 - x2; d[r &* 4 &+ 1] = x1 + x2; d[r &* 4 &+ 2] = x2 - x1; d[r &* 4 &+ 3] = x1 - x3
                }
                for col in 0 ..< 4 {
                    let x0 = d[col], x1 = d[4 &+ col], x2 = d[8 &+ col], x3 = d[12 &+ col]
                    storeVector(x0 - x2, destination + (col &* componentStride &+ ch))
                    storeVector(x1 + x2, destination + ((4 &+ col) &* componentStride &+ ch))
                    storeVector(x2 - x1, destination + ((8 &+ col) &* componentStride &+ ch))
                    storeVector(x1 - x3, destination + ((12 &+ col) &* componentStride &+ ch))
                }
                ch &+= vectorWidth
            }
            offset &+= c
        }
    }
}

/// M[k][t][co] = Σ_ci V[k][t][ci]·U[k][ci][co] for the block's `count` tiles and every component.
@inline(__always)
private func winogradGEMM(_ g: ConvGeometry, _ count: Int, _ v: UnsafePointer<Float>, _ m: UnsafeMutablePointer<Float>,
                          _ s: WinogradScratch) {
    let cin = g.inputChannels, blocks = g.packed.blocksPerGroup
    let blockStride = cin &* vectorWidth
    let chunk = blocks >= 4 ? 4 : (blocks >= 2 ? 2 : 1)
    for k in 0 ..< 16 {
        let vk = v + k &* s.vComponent
        let mk = m + k &* s.mComponent
        let uk = g.packed.weights + k &* blocks &* blockStride
        var block = 0
        while block < blocks {
            let width = block &+ chunk <= blocks ? chunk : 1
            let u = uk + block &* blockStride, out = mk + block &* vectorWidth
            var t = 0
            switch width {
            case 4:
                while t &+ 4 <= count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<4, 4>.self); t &+= 4 }
                while t < count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<1, 4>.self); t &+= 1 }
            case 2:
                while t &+ 8 <= count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<8, 2>.self); t &+= 8 }
                while t < count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<1, 2>.self); t &+= 1 }
            default:
                while t &+ 8 <= count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<8, 1>.self); t &+= 8 }
                while t &+ 4 <= count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<4, 1>.self); t &+= 4 }
                while t < count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<1, 1>.self); t &+= 1 }
            }
            block &+= width
        }
    }
}

/// P tiles from `t` × B output blocks of one component, accumulated over all input channels.
@inline(__always)
private func gemmTile<let P: Int, let B: Int>(_ vk: UnsafePointer<Float>, _ u: UnsafePointer<Float>,
                                              _ out: UnsafeMutablePointer<Float>, _ t: Int, _ cin: Int,
                                              _ s: WinogradScratch, _ blockStride: Int, _: Tile<P, B>.Type) {
    var acc = InlineArray<P, InlineArray<B, Vector>>(repeating: InlineArray<B, Vector>(repeating: Vector()))
    let rows = vk + t &* s.vStride
    for ci in 0 ..< cin {
        let w = u + ci &* vectorWidth
        for kb in 0 ..< B {
            let weight = loadVector(w + kb &* blockStride)
            for p in 0 ..< P {
                acc[p][kb] = acc[p][kb].addingProduct(Vector(repeating: rows[p &* s.vStride &+ ci]), weight)
            }
        }
    }
    for p in 0 ..< P {
        for kb in 0 ..< B { storeVector(acc[p][kb], out + ((t &+ p) &* s.mStride &+ kb &* vectorWidth)) }
    }
}

/// Writes the 2×2 outputs of each tile: Aᵀ·M·A + bias, activation, plus the residual; outputs past
/// the image's bottom or right edge are not stored.
@inline(__always)
private func winogradOutputTransform(_ g: ConvGeometry, _ residual: UnsafePointer<Float>?,
                                     _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int, _ first: Int,
                                     _ count: Int, _ m: UnsafePointer<Float>, _ s: WinogradScratch) {
    let componentStride = s.mComponent
    let cout = g.outputChannels, activation = g.activation
    let rowsValid = oy &+ g.dilationY < g.outputHeight ? 2 : 1
    for t in 0 ..< count {
        let ox = winogradTileStart(first &+ t, dilation: g.dilationX)
        let columnsValid = ox &+ g.dilationX < g.outputWidth ? 2 : 1
        for block in 0 ..< g.packed.blocksPerGroup {
            let source = m + (t &* s.mStride &+ block &* vectorWidth)
            // Along rows: (m0 + m1 + m2, m1 − m2 − m3); then down the columns.
            var rowSums = InlineArray<8, Vector>(repeating: Vector())
            for r in 0 ..< 4 {
                let m0 = loadVector(source + (r &* 4) &* componentStride)
                let m1 = loadVector(source + (r &* 4 &+ 1) &* componentStride)
                let m2 = loadVector(source + (r &* 4 &+ 2) &* componentStride)
                let m3 = loadVector(source + (r &* 4 &+ 3) &* componentStride)
                rowSums[r &* 2] = m0 + m1 + m2
                rowSums[r &* 2 &+ 1] = m1 - m2 - m3
            }
            let bias = loadVector(g.packed.bias + block &* vectorWidth)
            let lanes = min(vectorWidth, cout &- block &* vectorWidth)
            for i in 0 ..< rowsValid {
                let y = oy &+ i &* g.dilationY
                for j in 0 ..< columnsValid {
                    let value = i == 0 ? rowSums[j] + rowSums[2 &+ j] + rowSums[4 &+ j]
                                       : rowSums[2 &+ j] - rowSums[4 &+ j] - rowSums[6 &+ j]
                    let offset = ((b &* g.outputHeight &+ y) &* g.outputWidth &+ ox &+ j &* g.dilationX) &* cout
                        &+ block &* vectorWidth
                    var result = activation.apply(value + bias)
                    if let residual { result += loadVector(residual + offset) }
                    storeVector(result, output + offset, lanes: lanes)
                }
            }
        }
    }
}
