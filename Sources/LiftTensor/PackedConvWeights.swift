/// Convolution weights and bias repacked once into the layout the SIMD kernels read.
///
/// Dense and grouped: `[group][block][Kh][Kw][Cin/groups][16]`, where block `b` of a group holds its
/// output channels `16b ..< 16b+16` (lanes past the group's channel count are zero); bias
/// `[group][block][16]`. Depthwise (groups = Cin = Cout): `[Kh][Kw][Cpad]` and bias `[Cpad]`, with
/// `Cpad` = C rounded up to 16. Dot (few output channels per group): `[Cout][Kh][Kw][CinPad]` with
/// `CinPad` = Cin/groups rounded up to 16 (zero lanes), the kernel vectorising over input channels;
/// bias `[Cout]`. Winograd F(m×m, 3×3) (dense 3×3 stride 1): the (m+2)² components of U = G·g·Gᵀ
/// as `[component][block][Cin][16]` (component k = (m+2)·row + column), bias `[block][16]`.
/// `zeroRow` is a run of zeros standing in for padded input pixels.
struct PackedConvWeights: @unchecked Sendable {
    /// Which kernel the weights are packed for.
    enum Layout {
        /// Output channels in 16-lane blocks (the direct kernel).
        case blocked
        /// Channels in 16-lane blocks, one filter per channel.
        case depthwise
        /// Input channels as the lanes: for layers with fewer than 16 output channels per group.
        case dot
        /// Winograd F(m×m, 3×3) transformed weights (m = `winogradTile`), output channels in 16-lane blocks.
        case winograd

        /// The layout for a convolution of this grouping; `channelTail` allows `.dot` when Cin/groups
        /// is not a multiple of 16 (the kernel then masks its last input vector).
        static func choose(inputChannels: Int, outputChannels: Int, groups: Int, channelTail: Bool) -> Layout {
            if groups > 1 && groups == inputChannels && groups == outputChannels { return .depthwise }
            let cinG = inputChannels / groups, coutG = outputChannels / groups
            return coutG <= 8 && (channelTail || cinG % vectorWidth == 0) ? .dot : .blocked
        }
    }

    let weights: AlignedBuffer
    let bias: AlignedBuffer
    let zeroRow: AlignedBuffer
    let groups: Int
    let inputChannelsPerGroup: Int
    let outputChannelsPerGroup: Int
    /// Output channel blocks of 16 per group.
    let blocksPerGroup: Int
    let taps: Int
    let layout: Layout
    /// Output tile m of the Winograd layout (2 or 4); 0 for the others.
    let winogradTile: Int

    /// Floats between the same tap and input channel of two consecutive blocks.
    var blockStride: Int { taps * inputChannelsPerGroup * vectorWidth }

    /// Floats in each of the three packed buffers.
    struct BufferSizes: Equatable {
        var weights: Int
        var bias: Int
        var zeroRow: Int
        /// Floats in all three.
        var total: Int { weights + bias + zeroRow }
    }

    /// The buffer sizes of a packing of these sizes: `init` allocates exactly these, and a loader
    /// can check a budget with them before packing anything.
    static func bufferSizes(outputChannels: Int, inputChannelsPerGroup cinG: Int, groups: Int, taps: Int,
                            layout: Layout, winogradTile: Int = 0) -> BufferSizes {
        switch layout {
        case .winograd:
            let blocks = (outputChannels + vectorWidth - 1) / vectorWidth
            return BufferSizes(weights: (winogradTile + 2) * (winogradTile + 2) * blocks * cinG * vectorWidth,
                               bias: blocks * vectorWidth, zeroRow: roundUpToVector(cinG))
        case .dot:
            let cinPad = roundUpToVector(cinG)
            return BufferSizes(weights: outputChannels * taps * cinPad, bias: outputChannels, zeroRow: cinPad)
        case .depthwise:
            let padded = roundUpToVector(outputChannels)
            return BufferSizes(weights: taps * padded, bias: padded, zeroRow: padded)
        case .blocked:
            let blocks = (outputChannels / groups + vectorWidth - 1) / vectorWidth
            return BufferSizes(weights: groups * blocks * taps * cinG * vectorWidth, bias: groups * blocks * vectorWidth,
                               zeroRow: roundUpToVector(cinG))
        }
    }

    /// Floats this packing holds (`bufferSizes(…).total` for it).
    var elementCount: Int { weights.count + bias.count + zeroRow.count }

    /// Raw pointers and sizes for the kernels (no reference counting in hot loops); valid while
    /// `self` is alive.
    var view: PackedView {
        PackedView(weights: weights.pointer, bias: bias.pointer, zeroRow: zeroRow.pointer, groups: groups,
                   inputChannelsPerGroup: inputChannelsPerGroup, outputChannelsPerGroup: outputChannelsPerGroup,
                   blocksPerGroup: blocksPerGroup, taps: taps, blockStride: blockStride, winogradTile: winogradTile)
    }

    init(weights source: [Float], bias: [Float]?, outputChannels: Int, inputChannelsPerGroup cinG: Int,
         groups: Int, kernelHeight: Int, kernelWidth: Int, layout: Layout, winogradTile: Int = 0) {
        let taps = kernelHeight * kernelWidth
        let cpg = outputChannels / groups
        self.groups = groups
        self.inputChannelsPerGroup = cinG
        self.outputChannelsPerGroup = cpg
        self.taps = taps
        self.layout = layout
        self.winogradTile = layout == .winograd ? winogradTile : 0
        let sizes = Self.bufferSizes(outputChannels: outputChannels, inputChannelsPerGroup: cinG, groups: groups, taps: taps,
                                     layout: layout, winogradTile: winogradTile)
        self.weights = AlignedBuffer(count: sizes.weights)
        self.bias = AlignedBuffer(count: sizes.bias)
        zeroRow = AlignedBuffer(count: sizes.zeroRow)
        switch layout {
        case .blocked: break
        case .winograd:
            precondition(groups == 1 && kernelHeight == 3 && kernelWidth == 3 && (winogradTile == 2 || winogradTile == 4),
                         "Winograd weights need a dense 3×3 kernel and an output tile of 2 or 4")
            let blocks = (outputChannels + vectorWidth - 1) / vectorWidth
            blocksPerGroup = blocks
            if let bias { self.bias.pointer.update(from: bias, count: outputChannels) }
            let packed = self.weights.pointer
            source.withUnsafeBufferPointer { source in
                guard let source = source.baseAddress else { return }
                // The 9 taps of 16 output channels, [tap][lane]; lanes past the last channel stay zero.
                withUnsafeTemporaryAllocation(of: Double.self, capacity: 9 * vectorWidth) { taps in
                    guard let taps = taps.baseAddress else { preconditionFailure("Winograd scratch allocation failed") }
                    for block in 0 ..< blocks {
                        let lanes = min(vectorWidth, outputChannels - block * vectorWidth)
                        taps.initialize(repeating: 0, count: 9 * vectorWidth)
                        for ci in 0 ..< cinG {
                            for lane in 0 ..< lanes {
                                let co = block &* vectorWidth &+ lane
                                let filter = source + (co &* 9 &* cinG &+ ci)
                                for tap in 0 ..< 9 { taps[tap &* vectorWidth &+ lane] = Double(filter[tap &* cinG]) }
                            }
                            winogradWeightTransform(outputTile: winogradTile, taps: taps) { k, quarter, u in
                                let row: Int = (k &* blocks &+ block) &* cinG &+ ci
                                let offset: Int = row &* vectorWidth &+ quarter &* 4
                                UnsafeMutableRawPointer(packed + offset).storeBytes(of: u, as: SIMD4<Float>.self)
                            }
                        }
                    }
                }
            }
            return
        case .dot:
            let cinPad = roundUpToVector(cinG)
            blocksPerGroup = 0
            for row in 0 ..< outputChannels * taps {
                for ci in 0 ..< cinG { self.weights.pointer[row * cinPad + ci] = source[row * cinG + ci] }
            }
            if let bias { self.bias.pointer.update(from: bias, count: outputChannels) }
            return
        case .depthwise:
            let padded = roundUpToVector(outputChannels)
            blocksPerGroup = 1
            for channel in 0 ..< outputChannels {
                for tap in 0 ..< taps { self.weights.pointer[tap * padded + channel] = source[channel * taps + tap] }
                self.bias.pointer[channel] = bias?[channel] ?? 0
            }
            return
        }
        let blocks = (cpg + vectorWidth - 1) / vectorWidth
        blocksPerGroup = blocks
        let packed = self.weights.pointer, rowLength = taps * cinG
        source.withUnsafeBufferPointer { source in
            guard let source = source.baseAddress else { return }
            for group in 0 ..< groups {
                for block in 0 ..< blocks {
                    let blockBase = packed + (group * blocks + block) * rowLength * vectorWidth
                    for lane in 0 ..< vectorWidth where block * vectorWidth + lane < cpg {
                        let co = group * cpg + block * vectorWidth + lane
                        self.bias.pointer[(group * blocks + block) * vectorWidth + lane] = bias?[co] ?? 0
                        // One output channel's taps × inputs, contiguous in the source, to every
                        // 16th float of the block.
                        let row = source + co * rowLength
                        for k in 0 ..< rowLength { blockBase[k &* vectorWidth &+ lane] = row[k] }
                    }
                }
            }
        }
    }
}

/// `PackedConvWeights` as the kernels read it: plain pointers and sizes, trivially copyable.
struct PackedView: @unchecked Sendable {
    let weights: UnsafePointer<Float>
    let bias: UnsafePointer<Float>
    let zeroRow: UnsafePointer<Float>
    let groups: Int
    let inputChannelsPerGroup: Int
    let outputChannelsPerGroup: Int
    let blocksPerGroup: Int
    let taps: Int
    let blockStride: Int
    let winogradTile: Int
}

/// Everything a convolution kernel needs for one run, resolved for one input size. Holds raw
/// pointers: the caller keeps the `PackedConvWeights` alive for the run.
struct ConvGeometry: @unchecked Sendable {
    var batch: Int
    var inputHeight: Int, inputWidth: Int, inputChannels: Int
    var outputHeight: Int, outputWidth: Int, outputChannels: Int
    var kernelHeight: Int, kernelWidth: Int
    var strideY: Int, strideX: Int
    var dilationY: Int, dilationX: Int
    var padTop: Int, padLeft: Int
    var activation: Activation
    var packed: PackedView

    init(conv: Conv2D, input: TensorShape, output: TensorShape, padding: Padding) {
        let p = conv.parameters
        batch = input.n
        inputHeight = input.h; inputWidth = input.w; inputChannels = input.c
        outputHeight = output.h; outputWidth = output.w; outputChannels = output.c
        kernelHeight = p.kernelHeight; kernelWidth = p.kernelWidth
        strideY = p.strideY; strideX = p.strideX
        dilationY = p.dilationY; dilationX = p.dilationX
        padTop = padding.top; padLeft = padding.left
        activation = p.activation
        packed = conv.packed.view
    }

    /// True for a 1×1, stride-1, unpadded convolution: a GEMM over all pixels.
    var isPointwise: Bool {
        kernelHeight == 1 && kernelWidth == 1 && strideY == 1 && strideX == 1 && padTop == 0 && padLeft == 0
            && inputHeight == outputHeight && inputWidth == outputWidth
    }
}
