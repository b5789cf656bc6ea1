// Depthwise convolution (groups = Cin = Cout): channels are the vector lanes. Each output pixel's 16
// channels accumulate Kh·Kw products of an input vector and a packed weight vector; a tile of 8 pixels
// shares every weight load. 3×3 and 5×5 kernels get the tap loops unrolled by constant propagation.

/// Runs a depthwise convolution; `geometry` fixes every size.
func runDepthwise(_ g: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, threads: Int) {
    let channelBlocks = (g.outputChannels + vectorWidth - 1) / vectorWidth
    let rows = g.batch * g.outputHeight
    let minimumItems = max(1, (1 << 16) / max(2 * g.outputWidth * vectorWidth * g.packed.taps, 1))
    Parallel.forEach(count: rows * channelBlocks, threads: threads, minimumPerPart: minimumItems) { range in
        for item in range {
            let row = item / channelBlocks, channelBlock = item % channelBlocks
            let b = row / g.outputHeight, oy = row % g.outputHeight
            switch (g.kernelHeight, g.kernelWidth) {
            case (3, 3): depthwiseRow(g, input, output, b, oy, channelBlock, kernelHeight: 3, kernelWidth: 3)
            case (5, 5): depthwiseRow(g, input, output, b, oy, channelBlock, kernelHeight: 5, kernelWidth: 5)
            default: depthwiseRow(g, input, output, b, oy, channelBlock, kernelHeight: g.kernelHeight, kernelWidth: g.kernelWidth)
            }
        }
    }
}

/// One output row of one 16-channel block.
@inline(__always)
private func depthwiseRow(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                          _ b: Int, _ oy: Int, _ channelBlock: Int, kernelHeight: Int, kernelWidth: Int) {
    let channels = g.inputChannels
    let padded = roundUpToVector(channels)
    let c0 = channelBlock &* vectorWidth
    let lanes = min(vectorWidth, channels &- c0)
    let weights = UnsafePointer(g.packed.weights.pointer) + c0
    let bias = loadVector(g.packed.bias.pointer + c0)
    let zero = UnsafePointer(g.packed.zeroRow.pointer)
    let activation = g.activation
    let imageBase = input + (b &* g.inputHeight &* g.inputWidth &* channels &+ c0)
    let outRow = output + ((b &* g.outputHeight &+ oy) &* g.outputWidth &* channels &+ c0)
    let iyTop = oy &* g.strideY &- g.padTop
    let rowsInside = iyTop >= 0 && iyTop &+ (kernelHeight &- 1) &* g.dilationY < g.inputHeight
    let pixelStep = g.strideX &* channels
    var ox = 0
    while ox < g.outputWidth {
        let ix0 = ox &* g.strideX &- g.padLeft
        let tileFits = ox &+ 8 <= g.outputWidth && rowsInside && ix0 >= 0
            && ix0 &+ 7 &* g.strideX &+ (kernelWidth &- 1) &* g.dilationX < g.inputWidth
        if tileFits {
            var acc = InlineArray<8, Vector>(repeating: bias)
            for ky in 0 ..< kernelHeight {
                let rowBase = imageBase + ((iyTop &+ ky &* g.dilationY) &* g.inputWidth &+ ix0) &* channels
                for kx in 0 ..< kernelWidth {
                    let weight = loadVector(weights + ((ky &* kernelWidth &+ kx) &* padded))
                    let tap = rowBase + (kx &* g.dilationX &* channels)
                    for p in 0 ..< 8 { acc[p] = acc[p].addingProduct(loadVector(tap + (p &* pixelStep)), weight) }
                }
            }
            for p in 0 ..< 8 { storeVector(activation.apply(acc[p]), outRow + ((ox &+ p) &* channels), lanes: lanes) }
            ox &+= 8
        } else {
            // Edge pixel: taps outside the input read the zero row (same sum order as the tile path).
            var acc = bias
            for ky in 0 ..< kernelHeight {
                let iy = iyTop &+ ky &* g.dilationY
                if iy < 0 || iy >= g.inputHeight { continue }
                for kx in 0 ..< kernelWidth {
                    let ix = ix0 &+ kx &* g.dilationX
                    let source = ix >= 0 && ix < g.inputWidth ? imageBase + ((iy &* g.inputWidth &+ ix) &* channels) : zero
                    acc = acc.addingProduct(loadVector(source), loadVector(weights + ((ky &* kernelWidth &+ kx) &* padded)))
                }
            }
            storeVector(activation.apply(acc), outRow + (ox &* channels), lanes: lanes)
            ox &+= 1
        }
    }
}
