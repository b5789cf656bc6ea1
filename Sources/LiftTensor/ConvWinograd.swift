// Winograd F(m×m, 3×3), m = 2 or 4, for dense 3×3 stride-1 convolutions at any dilation (Lavin &
// Gray 2016; transforms in WinogradTransforms.swift).
//
// A tile is m×m outputs: rows oy + {0, d, …, (m−1)d} and the same columns (d = dilation), computed
// from the (m+2)×(m+2) input samples at rows oy−pad + {0, d, …, (m+1)d}. Per tile and channel the
// input is transformed as V = Bᵀ·x·B, the weights were transformed once at packing as U = G·g·Gᵀ,
// and the outputs are Aᵀ·M·A with M[k] = Σ_ci V[k][ci]·U[k][ci] for each of the (m+2)² components k:
// that many small GEMMs over input channels instead of 9 taps × m² pixels of direct multiply-adds
// (2.25× fewer multiplies for m = 2, 4× for m = 4). Tiles run in blocks of `tilesPerBlock` along a
// tile row: input transform into a scratch V[k][tile][Cin], GEMMs (tiles × 16-lane output blocks
// held in SIMD16 accumulators) into M[k][tile][Cout], output transform with bias, activation and an
// optional residual into the output. Work is split by tile row only, each tile row processed in the
// same blocks whatever the split, so results do not depend on the thread count.

import LiftParallel

/// One NHWC tensor with `channels` per pixel feeding a run of channels: of a convolution's input
/// (several side by side form the input of a convolution fused with the concat before it), or of a
/// concat's output.
struct ConvSource {
    let data: UnsafePointer<Float>
    let channels: Int
}

/// Tiles along one axis of `outputs` outputs for output tile `m` at dilation `d`: tile j covers
/// outputs `winogradTileStart(j)` + {0, d, …, (m−1)d}, so a period of m·d outputs holds d tiles.
@inline(__always)
func winogradTileCount(outputs: Int, tile m: Int, dilation d: Int) -> Int {
    let fullPeriods = outputs / (m * d)
    return fullPeriods * d + min(d, outputs - fullPeriods * m * d)
}

/// First output of tile `j` (increasing in j).
@inline(__always)
func winogradTileStart(_ j: Int, tile m: Int, dilation d: Int) -> Int {
    (j / d) &* (m &* d) &+ j % d
}

/// Scratch sizes of one Winograd part: V = [components][tiles][vStride], then M =
/// [components][tiles][mStride], each component padded by one vector (`vComponent`, `mComponent`
/// floats apart) so that the streams of a transform do not sit a multiple of 4 KB apart and evict
/// each other from the L1 cache.
private struct WinogradScratch {
    let tile: Int
    let components: Int
    let tilesPerBlock: Int
    let vStride: Int
    let mStride: Int
    let vComponent: Int
    let mComponent: Int

    init(tile: Int, inputChannels: Int, outputBlocks: Int, alignedSources: Bool) {
        self.tile = tile
        components = (tile + 2) * (tile + 2)
        // A source's last vector may spill 15 lanes past its channels into the next source's (which
        // overwrites them) or past Cin: one extra vector of room unless every source is 16-aligned.
        vStride = roundUpToVector(inputChannels) + (alignedSources ? 0 : vectorWidth)
        mStride = outputBlocks * vectorWidth
        // About 128 KB of V per block for m = 2, 256 KB for m = 4 (whose U, 2.25× larger, is then
        // read once per more tiles); a multiple of 4 tiles, 8…64. Both measured best of 128/256/512 KB.
        let budget = tile == 2 ? 32768 : 65536
        tilesPerBlock = max(8, min(64, budget / (components * vStride) / 4 * 4))
        vComponent = tilesPerBlock * vStride + vectorWidth
        mComponent = tilesPerBlock * mStride + vectorWidth
    }

    var floats: Int { components * (vComponent + mComponent) }
}

/// Runs a 3×3 stride-1 dense convolution by Winograd F(m×m, 3×3), m = `g.packed.winogradTile`.
/// `sources` give the input channels in order (their channel counts sum to `g.inputChannels`);
/// `residual`, if given, has the output's shape and is added after the activation.
func runWinograd(_ g: ConvGeometry, sources: UnsafeBufferPointer<ConvSource>, residual: UnsafePointer<Float>?,
                 output: UnsafeMutablePointer<Float>, threads: Int) {
    precondition(g.kernelHeight == 3 && g.kernelWidth == 3 && g.strideY == 1 && g.strideX == 1 && g.packed.groups == 1,
                 "Winograd F(m×m, 3×3) needs a dense 3×3 stride-1 convolution")
    let blocks = g.packed.blocksPerGroup, m = g.packed.winogradTile
    precondition(m == 2 || m == 4, "Winograd output tile must be 2 or 4, not \(m)")
    let scratch = WinogradScratch(tile: m, inputChannels: g.inputChannels, outputBlocks: blocks,
                                  alignedSources: sources.allSatisfy { $0.channels % vectorWidth == 0 })
    let tilesY = winogradTileCount(outputs: g.outputHeight, tile: m, dilation: g.dilationY)
    let tilesX = winogradTileCount(outputs: g.outputWidth, tile: m, dilation: g.dilationX)
    let rows = g.batch * tilesY
    let flopsPerRow = 2 * scratch.components * tilesX * g.inputChannels * blocks * vectorWidth
    let minimumRows = WorkGate.minimumItems(flopsPerItem: flopsPerRow)
    Parallel.forEach(count: rows, threads: threads, minimumPerPart: minimumRows) { range in
        withUnsafeTemporaryAllocation(byteCount: scratch.floats * 4, alignment: 64) { raw in
            guard let base = raw.baseAddress else { preconditionFailure("Winograd scratch allocation failed") }
            let v = base.bindMemory(to: Float.self, capacity: scratch.floats)
            if m == 2 {
                winogradRows(g, sources, residual, output, range, tilesY, tilesX, v, scratch, WinogradTile<2, 16>.self)
            } else {
                winogradRows(g, sources, residual, output, range, tilesY, tilesX, v, scratch, WinogradTile<4, 36>.self)
            }
        }
    }
}

/// A compile-time Winograd output tile M and its C = (M+2)² input samples, so that the transforms'
/// loops and branches fold away.
enum WinogradTile<let M: Int, let C: Int> {}

/// Tile rows `range` (batch-major) of the output, in blocks of `tilesPerBlock` tiles.
@inline(__always)
private func winogradRows<let M: Int, let C: Int>(_ g: ConvGeometry, _ sources: UnsafeBufferPointer<ConvSource>,
                                      _ residual: UnsafePointer<Float>?, _ output: UnsafeMutablePointer<Float>,
                                      _ range: Range<Int>, _ tilesY: Int, _ tilesX: Int, _ v: UnsafeMutablePointer<Float>,
                                      _ scratch: WinogradScratch, _ tile: WinogradTile<M, C>.Type) {
    let m = v + scratch.components * scratch.vComponent
    for row in range {
        let b = row / tilesY, oy = winogradTileStart(row % tilesY, tile: M, dilation: g.dilationY)
        var first = 0
        while first < tilesX {
            let count = min(scratch.tilesPerBlock, tilesX - first)
            winogradInputTransform(g, sources, b, oy, first, count, v, scratch, tile)
            winogradGEMM(g, count, v, m, scratch)
            winogradOutputTransform(g, residual, output, b, oy, first, count, m, scratch, tile)
            first &+= count
        }
    }
}

/// V[k][t][c] = (Bᵀ·x·B)[k] for tiles `first ..< first+count` of the tile row at output row `oy`.
@inline(__always)
private func winogradInputTransform<let M: Int, let C: Int>(_ g: ConvGeometry, _ sources: UnsafeBufferPointer<ConvSource>, _ b: Int,
                                                _ oy: Int, _ first: Int, _ count: Int, _ v: UnsafeMutablePointer<Float>,
                                                _ s: WinogradScratch, _: WinogradTile<M, C>.Type) {
    let points = M &+ 2
    let iy0 = oy &- g.padTop
    for t in 0 ..< count {
        let ix0 = winogradTileStart(first &+ t, tile: M, dilation: g.dilationX) &- g.padLeft
        var offset = 0
        for source in sources {
            let c = source.channels
            var samples = InlineArray<C, UnsafePointer<Float>>(repeating: g.packed.zeroRow)
            for r in 0 ..< points {
                let iy = iy0 &+ r &* g.dilationY
                if iy < 0 || iy >= g.inputHeight { continue }
                let rowBase = source.data + (b &* g.inputHeight &+ iy) &* g.inputWidth &* c
                for col in 0 ..< points {
                    let ix = ix0 &+ col &* g.dilationX
                    if ix >= 0 && ix < g.inputWidth { samples[r &* points &+ col] = rowBase + ix &* c }
                }
            }
            let destination = v + (t &* s.vStride &+ offset)
            var ch = 0
            while ch < c {
                if M == 2 {
                    winogradInputTransform2(samples, ch, destination + ch, s.vComponent)
                } else {
                    winogradInputTransform4(samples, ch, destination + ch, s.vComponent)
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
    // Output blocks per tile: 4 × 4 or 8 × 2 tiles are 16 accumulators on AVX-512; on AVX2 (16
    // registers of 8 floats) one block × 6 tiles, 12 registers (wider tiles spilled); on the SSE2
    // baseline (16 registers of 4 floats) one block × 2 tiles, 8 registers.
    let chunk = registerVectors < 32 ? 1 : (blocks >= 4 ? 4 : (blocks >= 2 ? 2 : 1))
    for k in 0 ..< s.components {
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
                if registerVectors < 8 {
                    while t &+ 2 <= count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<2, 1>.self); t &+= 2 }
                } else if registerVectors < 32 {
                    while t &+ 6 <= count { gemmTile(vk, u, out, t, cin, s, blockStride, Tile<6, 1>.self); t &+= 6 }
                }
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
                acc[p][kb] = multiplyAdd(Vector(repeating: rows[p &* s.vStride &+ ci]), weight, acc[p][kb])
            }
        }
    }
    for p in 0 ..< P {
        for kb in 0 ..< B { storeVector(acc[p][kb], out + ((t &+ p) &* s.mStride &+ kb &* vectorWidth)) }
    }
}

/// Writes the m×m outputs of each tile: Aᵀ·M·A + bias, activation, plus the residual; outputs past
/// the image's bottom or right edge are not stored.
@inline(__always)
private func winogradOutputTransform<let M: Int, let C: Int>(_ g: ConvGeometry, _ residual: UnsafePointer<Float>?,
                                     _ output: UnsafeMutablePointer<Float>, _ b: Int, _ oy: Int, _ first: Int,
                                     _ count: Int, _ m: UnsafePointer<Float>, _ s: WinogradScratch, _: WinogradTile<M, C>.Type) {
    let cout = g.outputChannels, activation = g.activation, tile = M
    let rowsValid = min(tile, (g.outputHeight &- oy &- 1) / g.dilationY &+ 1)
    for t in 0 ..< count {
        let ox = winogradTileStart(first &+ t, tile: tile, dilation: g.dilationX)
        let columnsValid = min(tile, (g.outputWidth &- ox &- 1) / g.dilationX &+ 1)
        for block in 0 ..< g.packed.blocksPerGroup {
            let source = m + (t &* s.mStride &+ block &* vectorWidth)
            let bias = loadVector(g.packed.bias + block &* vectorWidth)
            let lanes = min(vectorWidth, cout &- block &* vectorWidth)
            let store = { (i: Int, j: Int, value: Vector) in
                guard i < rowsValid && j < columnsValid else { return }
                let offset = ((b &* g.outputHeight &+ oy &+ i &* g.dilationY) &* g.outputWidth &+ ox &+ j &* g.dilationX) &* cout
                    &+ block &* vectorWidth
                var result = activation.apply(value + bias)
                if let residual { result += loadVector(residual + offset) }
                storeVector(result, output + offset, lanes: lanes)
            }
            if tile == 2 {
                winogradOutputTransform2(source, s.mComponent, store)
            } else {
                winogradOutputTransform4(source, s.mComponent, store)
            }
        }
    }
}
