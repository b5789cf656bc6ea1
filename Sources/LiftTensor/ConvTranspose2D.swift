import LiftParallel

/// How a transposed convolution crops its full `(in−1)·stride + k` output, as `lift.graph/1` says.
public enum TransposedConvCropping: Hashable, Sendable {
    /// No cropping: output `(in−1)·stride + k`.
    case valid
    /// Output `in·stride`: the full output cropped by `k − stride`, the smaller half on top/left.
    case same
    /// Crop `[top, left, bottom, right]` rows/columns off the full output.
    case explicit(Padding)
}

/// A transposed 2-D convolution (NHWC, Float32; PyTorch `ConvTranspose2d` with groups 1) with
/// weights packed at creation, fused bias and activation.
///
/// Weights come as `[Cout, Kh, Kw, Cin]` and are packed like `Conv2D`'s dense weights (16 output
/// channels as lanes), or kept as they are when there are at most 8 output channels and Cin is a
/// multiple of 16 (input channels as lanes). Each output pixel gathers the input pixels whose
/// scattered window covers it, so outputs never race and the result does not depend on the thread count.
public final class ConvTranspose2D: @unchecked Sendable {
    /// Input channels Cin.
    public let inputChannels: Int
    /// Output channels Cout.
    public let outputChannels: Int
    /// Kernel rows and columns.
    public let kernelHeight: Int, kernelWidth: Int
    /// Strides (the upsampling factors).
    public let strideY: Int, strideX: Int
    /// Output cropping.
    public let cropping: TransposedConvCropping
    /// Activation after the bias.
    public let activation: Activation

    let packed: PackedConvWeights

    /// Packs `weights` (`[Cout, Kh, Kw, Cin]`) and optional `bias` (`[Cout]`).
    public init(weights: [Float], bias: [Float]?, inputChannels: Int, outputChannels: Int,
                kernelHeight: Int, kernelWidth: Int, strideY: Int, strideX: Int,
                cropping: TransposedConvCropping = .valid, activation: Activation = .none) {
        precondition(inputChannels >= 1 && outputChannels >= 1 && kernelHeight >= 1 && kernelWidth >= 1
                     && strideY >= 1 && strideX >= 1, "transposed conv sizes must be ≥ 1")
        let expected = outputChannels * kernelHeight * kernelWidth * inputChannels
        precondition(weights.count == expected, "transposed conv weights need \(expected) floats, got \(weights.count)")
        precondition(bias == nil || bias?.count == outputChannels, "transposed conv bias needs \(outputChannels) floats")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.cropping = cropping
        self.activation = activation
        packed = PackedConvWeights(weights: weights, bias: bias, outputChannels: outputChannels,
                                   inputChannelsPerGroup: inputChannels, groups: 1,
                                   kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                                   layout: .choose(inputChannels: inputChannels, outputChannels: outputChannels, groups: 1,
                                                   channelTail: false))
    }

    /// Floats the packed weights of such a transposed convolution take, known before packing.
    public static func packedElementCount(inputChannels: Int, outputChannels: Int, kernelHeight: Int, kernelWidth: Int) -> Int {
        PackedConvWeights.bufferSizes(outputChannels: outputChannels, inputChannelsPerGroup: inputChannels, groups: 1,
                                      taps: kernelHeight * kernelWidth,
                                      layout: .choose(inputChannels: inputChannels, outputChannels: outputChannels, groups: 1,
                                                      channelTail: false)).total
    }

    /// Floats this transposed convolution's packed weights take.
    public var packedElementCount: Int { packed.elementCount }

    /// Rows/columns cropped `(top, left, bottom, right)`; bottom/right are negative when SAME asks for
    /// more than the full output (k < stride), the extra pixels holding only bias.
    func crop() -> (top: Int, left: Int, bottom: Int, right: Int) {
        switch cropping {
        case .valid: return (0, 0, 0, 0)
        case .explicit(let p): return (p.top, p.left, p.bottom, p.right)
        case .same:
            let totalY = kernelHeight - strideY, totalX = kernelWidth - strideX
            let top = max(totalY, 0) / 2, left = max(totalX, 0) / 2
            return (top, left, totalY - top, totalX - left)
        }
    }

    /// The output shape `[N, (H−1)·sy + Kh − crop, (W−1)·sx + Kw − crop, Cout]`, or nil if the channel
    /// count is wrong or the cropping leaves nothing.
    public func outputShape(for shape: TensorShape) -> TensorShape? {
        guard shape.c == inputChannels, shape.n >= 1, shape.h >= 1, shape.w >= 1 else { return nil }
        let c = crop()
        let h = (shape.h - 1) * strideY + kernelHeight - c.top - c.bottom
        let w = (shape.w - 1) * strideX + kernelWidth - c.left - c.right
        guard h >= 1, w >= 1 else { return nil }
        return TensorShape(n: shape.n, h: h, w: w, c: outputChannels)
    }

    /// Runs the transposed convolution into `output` (shape `outputShape(for: input.shape)`).
    public func run(input: Tensor, output: Tensor, threads: Int = Parallel.defaultThreads) {
        guard let expected = outputShape(for: input.shape) else {
            preconditionFailure("transposed conv \(inputChannels)→\(outputChannels) cannot take an input of shape \(input.shape)")
        }
        precondition(output.shape == expected, "transposed conv output shape \(output.shape) must be \(expected)")
        precondition(input !== output, "transposed conv cannot run in place")
        let geometry = TransposedGeometry(input: input.shape, output: expected, crop: crop(), kernelHeight: kernelHeight,
                                          kernelWidth: kernelWidth, strideY: strideY, strideX: strideX,
                                          activation: activation, packed: packed.view)
        let source = UnsafePointer(input.data), destination = output.data, dot = packed.layout == .dot
        let disjoint = dot && kernelHeight == strideY && kernelWidth == strideX
        let flopsPerInputRow = 2 * input.shape.w * inputChannels * outputChannels * kernelHeight * kernelWidth
        let minimumInputRows = WorkGate.minimumItems(flopsPerItem: flopsPerInputRow)
        withExtendedLifetime(packed) {
            if disjoint {
                // Every input pixel owns its own Kh×Kw block of outputs: compute them from one load.
                let pairs = geometry.runsPairs
                Parallel.forEach(count: input.shape.n * input.shape.h, threads: threads, minimumPerPart: minimumInputRows) { rows in
                    for row in rows {
                        if pairs { geometry.pairRow(source, destination, inputRow: row) } else { geometry.scatterRow(source, destination, inputRow: row) }
                    }
                }
                return
            }
            Parallel.forEach(count: expected.n * expected.h, threads: threads, minimumPerPart: max(1, minimumInputRows / strideY)) { rows in
                for row in rows {
                    // Output (oy, ox) takes taps ky ≡ oy + top (mod sy) from input row (oy + top − ky)/sy,
                    // and likewise for columns; walk both incrementally instead of dividing per tap.
                    let oy = row % expected.h
                    let rowPhase = Phase(offset: oy + geometry.crop.top, stride: geometry.strideY)
                    var column = Phase(offset: geometry.crop.left, stride: geometry.strideX)
                    for ox in 0 ..< expected.w {
                        if dot {
                            geometry.dotPixel(source, destination, row: row, ox: ox, rows: rowPhase, columns: column)
                        } else {
                            geometry.blockedPixel(source, destination, row: row, ox: ox, rows: rowPhase, columns: column)
                        }
                        column.advance()
                    }
                }
            }
        }
    }
}

/// One transposed convolution run: sizes, crop and raw weight pointers.
private struct TransposedGeometry: @unchecked Sendable {
    let input: TensorShape, output: TensorShape
    let crop: (top: Int, left: Int, bottom: Int, right: Int)
    let kernelHeight: Int, kernelWidth: Int, strideY: Int, strideX: Int
    let activation: Activation
    let packed: PackedView

    /// Visits every tap `(ky, kx)` that reaches output pixel `(row, ox)` with its input pixel, in
    /// increasing ky then kx order.
    @inline(__always)
    func forEachTap(_ base: UnsafePointer<Float>, row: Int, rows: Phase, columns: Phase,
                    _ body: (_ tap: Int, _ pixel: UnsafePointer<Float>) -> Void) {
        let b = row / output.h
        var ky = rows.firstTap, iy = rows.firstInput
        while ky < kernelHeight && iy >= 0 {
            if iy < input.h {
                var kx = columns.firstTap, ix = columns.firstInput
                while kx < kernelWidth && ix >= 0 {
                    if ix < input.w { body(ky &* kernelWidth &+ kx, base + ((b &* input.h &+ iy) &* input.w &+ ix) &* input.c) }
                    kx &+= strideX
                    ix &-= 1
                }
            }
            ky &+= strideY
            iy &-= 1
        }
    }

    /// Output pixel `(row, ox)`, 16 output channels per vector.
    @inline(__always)
    func blockedPixel(_ base: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, row: Int, ox: Int,
                      rows: Phase, columns: Phase) {
        let cin = input.c
        let out = destination + (row &* output.w &+ ox) &* output.c
        for block in 0 ..< packed.blocksPerGroup {
            var acc = loadVector(packed.bias + block &* vectorWidth)
            let weights = packed.weights + block &* packed.blockStride
            forEachTap(base, row: row, rows: rows, columns: columns) { tap, pixel in
                let tapWeights = weights + tap &* cin &* vectorWidth
                for ci in 0 ..< cin {
                    acc = multiplyAdd(Vector(repeating: pixel[ci]), loadVector(tapWeights + ci &* vectorWidth), acc)
                }
            }
            let lanes = min(vectorWidth, output.c &- block &* vectorWidth)
            storeVector(activation.apply(acc), out + block &* vectorWidth, lanes: lanes)
        }
    }

    /// Output pixel `(row, ox)`, input channels as lanes, one output channel at a time.
    @inline(__always)
    func dotPixel(_ base: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, row: Int, ox: Int,
                  rows: Phase, columns: Phase) {
        let cin = input.c
        let out = destination + (row &* output.w &+ ox) &* output.c
        for co in 0 ..< output.c {
            var acc = Vector()
            let filter = packed.weights + co &* packed.taps &* cin
            forEachTap(base, row: row, rows: rows, columns: columns) { tap, pixel in
                let tapWeights = filter + tap &* cin
                var c = 0
                while c < cin {
                    acc = multiplyAdd(loadVector(pixel + c), loadVector(tapWeights + c), acc)
                    c &+= vectorWidth
                }
            }
            out[co] = activation.apply(horizontalSum(acc) + packed.bias[co])
        }
    }
}

extension TransposedGeometry {
    /// For kernel = stride (outputs of different input pixels never overlap) with input channels as
    /// lanes: every output of input row `inputRow`, one input pixel at a time. A sigmoid is deferred:
    /// sums are stored with their bias, then it runs 16 values at a time over the whole output rows
    /// that this input row alone writes (a scalar `expf` per output made the selfie model's sigmoid
    /// head its slowest layer). Cheap activations stay inline, where a second pass would cost more.
    @inline(__always)
    func scatterRow(_ base: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, inputRow: Int) {
        let b = inputRow / input.h, iy = inputRow % input.h, cin = input.c
        let deferred = activation == .sigmoid, inline = deferred ? Activation.none : activation
        for ix in 0 ..< input.w {
            let pixel = base + (inputRow &* input.w &+ ix) &* cin
            for ky in 0 ..< kernelHeight {
                let oy = iy &* strideY &+ ky &- crop.top
                if oy < 0 || oy >= output.h { continue }
                for kx in 0 ..< kernelWidth {
                    let ox = ix &* strideX &+ kx &- crop.left
                    if ox < 0 || ox >= output.w { continue }
                    let out = destination + ((b &* output.h &+ oy) &* output.w &+ ox) &* output.c
                    for co in 0 ..< output.c {
                        let tapWeights = packed.weights + (co &* packed.taps &+ ky &* kernelWidth &+ kx) &* cin
                        var acc = Vector()
                        var c = 0
                        while c < cin {
                            acc = multiplyAdd(loadVector(pixel + c), loadVector(tapWeights + c), acc)
                            c &+= vectorWidth
                        }
                        out[co] = inline.apply(horizontalSum(acc) + packed.bias[co])
                    }
                }
            }
        }
        guard deferred else { return }
        // Kernel = stride: output rows iy·sy − top ..< + Kh are written by this input row only, every column.
        let first = max(iy &* strideY &- crop.top, 0), end = min(iy &* strideY &- crop.top &+ kernelHeight, output.h)
        if first < end {
            let rowFloats = output.w &* output.c
            activation.apply(inPlace: destination + (b &* output.h &+ first) &* rowFloats, count: (end &- first) &* rowFloats)
        }
    }
}

extension TransposedGeometry {
    /// True when `pairRow` applies to a disjoint (kernel = stride, input channels as lanes) geometry:
    /// 2 columns, one output channel, no columns cropped — MediaPipe selfie's 2×2 stride-2 16→1 head.
    var runsPairs: Bool {
        output.c == 1 && kernelWidth == 2 && strideX == 2 && kernelHeight == strideY
            && crop.left == 0 && output.w == 2 &* input.w
    }

    /// `scatterRow` for `runsPairs` geometries: 8 input pixels at a time make 16 consecutive outputs of
    /// each kernel row. Their 16 dot products over the input channels (pixel-major, column tap minor:
    /// output order) are reduced lane-wise by a halving tree into one vector — 15 vector adds instead
    /// of 16 horizontal sums — then bias, activation (a sigmoid too, 16 lanes at a time) and one store.
    /// A row's last `input.w mod 8` pixels take the scalar route.
    @inline(__always)
    func pairRow(_ base: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, inputRow: Int) {
        let b = inputRow / input.h, iy = inputRow % input.h, cin = input.c
        let pixels = base + inputRow &* input.w &* cin, bias = packed.bias[0]
        for ky in 0 ..< kernelHeight {
            let oy = iy &* strideY &+ ky &- crop.top
            if oy < 0 || oy >= output.h { continue }
            let out = destination + (b &* output.h &+ oy) &* output.w
            let left = packed.weights + ky &* 2 &* cin, right = left + cin
            var ix = 0
            while ix &+ 8 <= input.w {
                let pixel = pixels + ix &* cin, step = cin
                let sums = foldPairs(
                    foldPairs(foldPairs(tapPair(pixel, left, right, cin), tapPair(pixel + step, left, right, cin)),
                              foldPairs(tapPair(pixel + 2 &* step, left, right, cin), tapPair(pixel + 3 &* step, left, right, cin))),
                    foldPairs(foldPairs(tapPair(pixel + 4 &* step, left, right, cin), tapPair(pixel + 5 &* step, left, right, cin)),
                              foldPairs(tapPair(pixel + 6 &* step, left, right, cin), tapPair(pixel + 7 &* step, left, right, cin))))
                storeVector(activation.apply(sums + Vector(repeating: bias)), out + 2 &* ix)
                ix &+= 8
            }
            while ix < input.w {
                let pixel = pixels + ix &* cin
                for kx in 0 ..< 2 {
                    var acc = Vector()
                    var c = 0
                    while c < cin {
                        acc = multiplyAdd(loadVector(pixel + c), loadVector(left + (kx &* cin &+ c)), acc)
                        c &+= vectorWidth
                    }
                    out[2 &* ix &+ kx] = activation.apply(horizontalSum(acc) + bias)
                }
                ix &+= 1
            }
        }
    }
}

/// The products of one input pixel with the left and right column taps, summed over channel blocks,
/// folded once: lanes 0–7 add up to the left dot product, lanes 8–15 to the right one.
@inline(__always)
private func tapPair(_ pixel: UnsafePointer<Float>, _ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, _ cin: Int) -> Vector {
    var l = Vector(), r = Vector()
    var c = 0
    while c < cin {
        let x = loadVector(pixel + c)
        l = multiplyAdd(x, loadVector(left + c), l)
        r = multiplyAdd(x, loadVector(right + c), r)
        c &+= vectorWidth
    }
    return Vector(lowHalf: l.lowHalf + l.highHalf, highHalf: r.lowHalf + r.highHalf)
}

/// One level of the halving tree: `a`'s and `b`'s groups of 2g lanes (each adding up to one dot
/// product) become groups of g lanes, `a`'s in the low half, `b`'s in the high half. (The even/odd
/// splits compile to lane inserts rather than one two-source permute each, so the tree costs about
/// three times what it could: 1.3× faster than 16 horizontal sums, not 4×.)
@inline(__always)
private func foldPairs(_ a: Vector, _ b: Vector) -> Vector {
    Vector(lowHalf: a.evenHalf + a.oddHalf, highHalf: b.evenHalf + b.oddHalf)
}

/// Where output coordinate `o` of a transposed convolution meets the kernel along one axis: the
/// first tap `(o + crop) mod stride` and the input index `(o + crop − tap) / stride` it reads; the
/// next taps (tap + stride, tap + 2·stride, …) read input indices one lower each.
struct Phase {
    private(set) var firstTap: Int
    private(set) var firstInput: Int
    private let stride: Int

    /// The phase of coordinate `offset` = output index + crop (≥ 0).
    init(offset: Int, stride: Int) {
        self.stride = stride
        firstTap = offset % stride
        firstInput = offset / stride
    }

    /// Moves to the next output coordinate.
    @inline(__always)
    mutating func advance() {
        firstTap &+= 1
        if firstTap == stride {
            firstTap = 0
            firstInput &+= 1
        }
    }
}
