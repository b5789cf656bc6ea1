import LiftParallel

/// A 2-D max or average pooling window (NHWC, Float32), as `max_pool2d` / `avg_pool2d` in `lift.graph/1`.
///
/// Output size follows PyTorch: `floor` (or `ceil` with `ceilMode`) of `(in + pads − k) / stride` plus 1,
/// and in ceil mode a last window that would start in the bottom/right padding is dropped. Average
/// pooling divides by the window's in-input pixel count, or with `countIncludePad` by its size clipped
/// to the padded input (PyTorch's rule). Channels are the vector lanes.
public struct Pool2D: Hashable, Sendable {
    /// Maximum or mean over the window.
    public enum Kind: String, Hashable, Sendable { case max, average }

    /// Maximum or average.
    public var kind: Kind
    /// Window rows and columns.
    public var kernelHeight: Int, kernelWidth: Int
    /// Strides (default: the window size).
    public var strideY: Int, strideX: Int
    /// Padding (max pools pad with −∞, average pools leave padding out of the sum).
    public var padding: PaddingMode
    /// PyTorch `ceil_mode`.
    public var ceilMode: Bool
    /// PyTorch `count_include_pad` (average only).
    public var countIncludePad: Bool

    /// A pooling window; strides default to the window size.
    public init(kind: Kind, kernelHeight: Int, kernelWidth: Int, strideY: Int? = nil, strideX: Int? = nil,
                padding: PaddingMode = .valid, ceilMode: Bool = false, countIncludePad: Bool = false) {
        precondition(kernelHeight >= 1 && kernelWidth >= 1, "pool window must be at least 1×1")
        self.kind = kind
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY ?? kernelHeight
        self.strideX = strideX ?? kernelWidth
        precondition(self.strideY >= 1 && self.strideX >= 1, "pool stride must be ≥ 1")
        self.padding = padding
        self.ceilMode = ceilMode
        self.countIncludePad = countIncludePad
    }

    /// The padding applied to an input of `shape`.
    public func padding(for shape: TensorShape) -> Padding {
        padding.resolve(height: shape.h, width: shape.w, kernel: (kernelHeight, kernelWidth), stride: (strideY, strideX))
    }

    private func outputSize(_ input: Int, _ before: Int, _ after: Int, _ kernel: Int, _ stride: Int) -> Int? {
        let span = input + before + after - kernel
        guard input >= 1, span >= 0 else { return nil }
        var size = (ceilMode ? span + stride - 1 : span) / stride + 1
        if ceilMode && (size - 1) * stride >= input + before { size -= 1 }
        return size
    }

    /// The output shape for an input of `shape`, or nil if the window does not fit the padded input.
    public func outputShape(for shape: TensorShape) -> TensorShape? {
        let pad = padding(for: shape)
        guard shape.n >= 1, shape.c >= 1,
              let h = outputSize(shape.h, pad.top, pad.bottom, kernelHeight, strideY),
              let w = outputSize(shape.w, pad.left, pad.right, kernelWidth, strideX) else { return nil }
        return TensorShape(n: shape.n, h: h, w: w, c: shape.c)
    }

    /// Pools `input` into `output` (shape `outputShape(for: input.shape)`). A window holding no input
    /// pixel gives −∞ (max) or 0 (average).
    public func run(input: Tensor, output: Tensor, threads: Int = Parallel.defaultThreads) {
        guard let expected = outputShape(for: input.shape) else {
            preconditionFailure("pool cannot take an input of shape \(input.shape)")
        }
        precondition(output.shape == expected, "pool output shape \(output.shape) must be \(expected)")
        precondition(input !== output, "pool cannot run in place")
        let shape = input.shape, pad = padding(for: shape), pool = self
        let source = UnsafePointer(input.data), destination = output.data
        let channels = shape.c
        let bytesPerRow = 4 * channels * (expected.w + pool.kernelHeight * shape.w)
        Parallel.forEach(count: expected.n * expected.h, threads: threads,
                         minimumPerPart: WorkGate.minimumItems(bytesPerItem: bytesPerRow)) { rows in
            for row in rows {
                let b = row / expected.h, oy = row % expected.h
                let y0 = oy * pool.strideY - pad.top
                let yEnd = min(y0 + pool.kernelHeight, shape.h + pad.bottom)
                let yFirst = max(y0, 0), yLast = min(yEnd, shape.h)
                for ox in 0 ..< expected.w {
                    let x0 = ox * pool.strideX - pad.left
                    let xEnd = min(x0 + pool.kernelWidth, shape.w + pad.right)
                    let xFirst = max(x0, 0), xLast = min(xEnd, shape.w)
                    let inside = max(yLast - yFirst, 0) * max(xLast - xFirst, 0)
                    let divisor = pool.countIncludePad ? (yEnd - y0) * (xEnd - x0) : inside
                    let scale: Float = divisor > 0 ? 1 / Float(divisor) : 0
                    let out = destination + ((b * expected.h + oy) * expected.w + ox) * channels
                    var c0 = 0
                    while c0 < channels {
                        let lanes = min(vectorWidth, channels - c0)
                        var acc = Vector(repeating: pool.kind == .max ? -.infinity : 0)
                        for y in yFirst ..< max(yLast, yFirst) {
                            let rowBase = source + ((b &* shape.h &+ y) &* shape.w &* channels &+ c0)
                            for x in xFirst ..< max(xLast, xFirst) {
                                let value = loadVector(rowBase + x &* channels)
                                acc = pool.kind == .max ? pointwiseMax(acc, value) : acc + value
                            }
                        }
                        storeVector(pool.kind == .max ? acc : acc * scale, out + c0, lanes: lanes)
                        c0 += vectorWidth
                    }
                }
            }
        }
    }
}

/// Global average pooling: `[N, H, W, C]` → `[N, 1, 1, C]`, the mean of every channel over all pixels.
public enum GlobalAveragePool {
    /// The output shape `[N, 1, 1, C]`.
    public static func outputShape(for shape: TensorShape) -> TensorShape {
        TensorShape(n: shape.n, h: 1, w: 1, c: shape.c)
    }

    /// Averages `input` into `output` (shape `[N, 1, 1, C]`), summing pixels in row-major order.
    ///
    /// The sum is kept in Double: a Float32 running sum over 128² pixels drifts by ~3e-6 relative,
    /// which squeeze-and-excite gates amplify past 1e-4 in the person model's output (TFLite sums
    /// in another order, so only a more exact sum agrees with it everywhere).
    public static func run(input: Tensor, output: Tensor, threads: Int = Parallel.defaultThreads) {
        let shape = input.shape
        precondition(output.shape == outputShape(for: shape), "global average pool output must be \(outputShape(for: shape))")
        precondition(shape.h * shape.w >= 1, "global average pool needs at least one pixel")
        let source = UnsafePointer(input.data), destination = output.data
        let channels = shape.c, pixels = shape.h * shape.w, blocks = (channels + vectorWidth - 1) / vectorWidth
        let count = Double(pixels)
        Parallel.forEach(count: shape.n * blocks, threads: threads, minimumPerPart: WorkGate.minimumItems(bytesPerItem: 4 * pixels * vectorWidth)) { items in
            for item in items {
                let b = item / blocks, c0 = (item % blocks) * vectorWidth
                var acc = SIMD16<Double>()
                var pixel = source + b * pixels * channels + c0
                for _ in 0 ..< pixels {
                    acc += SIMD16<Double>(loadVector(pixel))
                    pixel += channels
                }
                storeVector(Vector(acc / count), destination + b * channels + c0, lanes: min(vectorWidth, channels - c0))
            }
        }
    }
}
