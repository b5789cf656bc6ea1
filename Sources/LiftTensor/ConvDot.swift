// Convolution for layers with few output channels per group (U²-Net's 64→1 side outputs and 6→1
// fusion): input channels are the vector lanes, the last vector masked when Cin/groups is not a
// multiple of 16. A tile of 8 (AVX2: 4) output pixels keeps one 16-lane partial sum per pixel;
// every tap adds input-vector × weight-vector products, and the lanes are summed once at the end.

import LiftParallel

/// Runs a convolution packed with the `.dot` layout; `geometry` fixes every size.
func runDot(_ g: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, threads: Int) {
    let rows = g.batch * g.outputHeight
    let flopsPerRow = 2 * g.outputWidth * g.outputChannels * g.packed.taps * g.packed.inputChannelsPerGroup
    // Lanes past Cin/groups in the last input vector hold the next pixel's channels: they are zeroed,
    // since their zero weights would turn an infinity there into NaN.
    var laneIndex = SIMD16<Int32>()
    for lane in 0 ..< vectorWidth { laneIndex[lane] = Int32(lane) }
    let tailMask = laneIndex .>= SIMD16(repeating: Int32(g.packed.inputChannelsPerGroup % vectorWidth))
    Parallel.forEach(count: rows, threads: threads, minimumPerPart: WorkGate.minimumItems(flopsPerItem: flopsPerRow)) { range in
        for row in range {
            let b = row / g.outputHeight, oy = row % g.outputHeight
            for co in 0 ..< g.outputChannels {
                var ox = 0
                while ox &+ dotTilePixels <= g.outputWidth { dotTile(g, input, output, b, oy, ox, co, tailMask, DotTile.self); ox &+= dotTilePixels }
                while ox < g.outputWidth { dotTile(g, input, output, b, oy, ox, co, tailMask, Tile<1, 1>.self); ox &+= 1 }
            }
        }
    }
}

/// Pixels per tile: one 16-lane partial sum each, 8 on AVX-512, 4 on AVX2 (two registers a sum;
/// 8 pixels spilled), 2 on the SSE2 baseline (four registers a sum).
#if LIFT_AVX512
private typealias DotTile = Tile<8, 1>
private let dotTilePixels = 8
#elseif LIFT_FMA || arch(arm64)
private typealias DotTile = Tile<4, 1>
private let dotTilePixels = 4
#else
private typealias DotTile = Tile<2, 1>
private let dotTilePixels = 2
#endif

/// Output channel `co` of pixels `ox ..< ox+P` in row `oy` of batch `b`.
@inline(__always)
private func dotTile<let P: Int>(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                                 _ b: Int, _ oy: Int, _ ox: Int, _ co: Int, _ tailMask: SIMDMask<SIMD16<Int32>>,
                                 _: Tile<P, 1>.Type) {
    let packed = g.packed
    let cinG = packed.inputChannelsPerGroup
    let group = co / packed.outputChannelsPerGroup
    let cinPad = roundUpToVector(cinG), fullVectors = cinG &- cinG % vectorWidth
    let filter = packed.weights + co &* packed.taps &* cinPad
    let zero = packed.zeroRow
    var acc = InlineArray<P, Vector>(repeating: Vector())
    let ix0 = ox &* g.strideX &- g.padLeft
    let interior = ix0 >= 0 && ix0 &+ (P &- 1) &* g.strideX &+ (g.kernelWidth &- 1) &* g.dilationX < g.inputWidth
    let pixelStride = g.inputChannels
    // In an interior tile of an undilated dense convolution the Kw taps of a kernel row are one
    // contiguous run of Kw·Cin floats in both the input and the weights: one segment per row.
    let wholeRow = interior && g.dilationX == 1 && packed.groups == 1 && cinPad == cinG
    let segments = wholeRow ? 1 : g.kernelWidth
    let segmentLength = wholeRow ? g.kernelWidth &* cinG : cinG
    for ky in 0 ..< g.kernelHeight {
        let iy = oy &* g.strideY &- g.padTop &+ ky &* g.dilationY
        if iy < 0 || iy >= g.inputHeight { continue }
        let rowBase = input + ((b &* g.inputHeight &+ iy) &* g.inputWidth &* pixelStride &+ group &* cinG)
        for kx in 0 ..< segments {
            var sources = InlineArray<P, UnsafePointer<Float>>(repeating: zero)
            let tapX = ix0 &+ kx &* g.dilationX
            for p in 0 ..< P {
                let ix = tapX &+ p &* g.strideX
                if interior || (ix >= 0 && ix < g.inputWidth) { sources[p] = rowBase + (ix &* pixelStride) }
            }
            let weights = filter + ((ky &* g.kernelWidth &+ kx) &* cinPad)
            let fullLength = wholeRow ? segmentLength : fullVectors
            var c = 0
            while c < fullLength {
                let weight = loadVector(weights + c)
                for p in 0 ..< P { acc[p] = multiplyAdd(loadVector(sources[p] + c), weight, acc[p]) }
                c &+= vectorWidth
            }
            if c < segmentLength {
                let weight = loadVector(weights + c)
                for p in 0 ..< P {
                    acc[p] = multiplyAdd(loadVector(sources[p] + c).replacing(with: 0, where: tailMask), weight, acc[p])
                }
            }
        }
    }
    let bias = packed.bias[co]
    let out = output + (((b &* g.outputHeight &+ oy) &* g.outputWidth &+ ox) &* g.outputChannels &+ co)
    for p in 0 ..< P { out[p &* g.outputChannels] = g.activation.apply(horizontalSum(acc[p]) + bias) }
}

