import LiftParallel

/// How output pixel centres map to input coordinates when resizing (`coordinates` in `lift.graph/1`).
public enum ResizeCoordinates: String, Hashable, Sendable {
    /// src = (dst + 0.5)·in/out − 0.5 (PyTorch `align_corners=False`, TF `half_pixel_centers=True`).
    case halfPixel = "half_pixel"
    /// src = dst·(in − 1)/(out − 1) (PyTorch and TF `align_corners=True`).
    case alignCorners = "align_corners"
    /// src = dst·in/out (TF legacy, PyTorch `nearest`).
    case asymmetric

    /// The input coordinate of output index `dst` for an axis `input → output` long.
    @inline(__always)
    func source(_ dst: Int, input: Int, output: Int) -> Float {
        switch self {
        case .halfPixel: return max((Float(dst) + 0.5) * (Float(input) / Float(output)) - 0.5, 0)
        case .alignCorners: return output > 1 ? Float(dst) * (Float(input - 1) / Float(output - 1)) : 0
        case .asymmetric: return Float(dst) * (Float(input) / Float(output))
        }
    }

    /// The nearest input index of output index `dst`: `floor` of the half-pixel or asymmetric source
    /// position (`(dst + 0.5)·in/out`, PyTorch `nearest-exact`; `dst·in/out`, PyTorch `nearest`), or for
    /// `alignCorners` the rounded `dst·(in−1)/(out−1)`; clamped to the input.
    @inline(__always)
    func nearest(_ dst: Int, input: Int, output: Int) -> Int {
        let position: Float
        switch self {
        case .halfPixel: position = ((Float(dst) + 0.5) * (Float(input) / Float(output))).rounded(.down)
        case .alignCorners: position = (output > 1 ? Float(dst) * (Float(input - 1) / Float(output - 1)) : 0).rounded()
        case .asymmetric: position = (Float(dst) * (Float(input) / Float(output))).rounded(.down)
        }
        return min(max(Int(position), 0), input - 1)
    }
}

/// Bilinear and nearest-neighbour resizing of the H and W axes (NHWC, Float32; N and C unchanged).
/// The output size is the output tensor's; channels are the vector lanes.
public enum Resize {
    /// Bilinear interpolation; samples outside the input are clamped to the edge. Weights follow
    /// PyTorch: `h0λ·(w0λ·x00 + w1λ·x01) + h1λ·(w0λ·x10 + w1λ·x11)`; `activation` is applied to each
    /// output value. One channel (a mask or logit map) runs 16 output pixels at a time.
    public static func bilinear(input: Tensor, output: Tensor, coordinates: ResizeCoordinates,
                                activation: Activation = .none, threads: Int = Parallel.defaultThreads) {
        let (inShape, outShape) = checkShapes(input, output)
        if inShape.c == 1 {
            bilinearSingleChannel(input: input, output: output, coordinates: coordinates, activation: activation, threads: threads)
            return
        }
        let source = UnsafePointer(input.data), destination = output.data, channels = inShape.c
        withColumns(inputWidth: inShape.w, outputWidth: outShape.w, coordinates: coordinates) { columns, right in
            forEachOutputRow(outShape, threads: threads) { row in
                let b = row / outShape.h, oy = row % outShape.h
                let sy = coordinates.source(oy, input: inShape.h, output: outShape.h)
                let y0 = min(Int(sy), inShape.h - 1), y1 = min(y0 + 1, inShape.h - 1)
                let h1 = Vector(repeating: min(sy - Float(y0), 1)), h0 = 1 - h1
                let top = source + (b * inShape.h + y0) * inShape.w * channels
                let bottom = source + (b * inShape.h + y1) * inShape.w * channels
                let out = destination + row * outShape.w * channels
                for ox in 0 ..< outShape.w {
                    let x0 = columns[2 &* ox] &* channels, x1 = columns[2 &* ox &+ 1] &* channels
                    let w1 = Vector(repeating: right[ox]), w0 = 1 - w1
                    let target = out + ox &* channels
                    var c0 = 0
                    while c0 < channels {
                        let upper = w0 * loadVector(top + (x0 &+ c0)) + w1 * loadVector(top + (x1 &+ c0))
                        let lower = w0 * loadVector(bottom + (x0 &+ c0)) + w1 * loadVector(bottom + (x1 &+ c0))
                        storeVector(activation.apply(h0 * upper + h1 * lower), target + c0, lanes: min(vectorWidth, channels &- c0))
                        c0 &+= vectorWidth
                    }
                }
            }
        }
    }

    /// Calls `body` with a table of every output column's left and right source column
    /// (`columns[2·ox]`, `columns[2·ox + 1]`) and the right one's weight (`right[ox]`), computed once
    /// per call instead of once per row; padded to whole vectors (the padding repeats column 0).
    private static func withColumns(inputWidth: Int, outputWidth: Int, coordinates: ResizeCoordinates,
                                    _ body: (UnsafePointer<Int>, UnsafePointer<Float>) -> Void) {
        let padded = roundUpToVector(outputWidth)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * padded) { indices in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: padded) { weights in
                guard let columns = indices.baseAddress, let right = weights.baseAddress else {
                    preconditionFailure("resize column table allocation failed")
                }
                for ox in 0 ..< padded {
                    let sx = coordinates.source(ox < outputWidth ? ox : 0, input: inputWidth, output: outputWidth)
                    let x0 = min(Int(sx), inputWidth - 1)
                    columns[2 * ox] = x0
                    columns[2 * ox + 1] = min(x0 + 1, inputWidth - 1)
                    right[ox] = min(sx - Float(x0), 1)
                }
                body(columns, right)
            }
        }
    }

    /// `bilinear` for one channel: the columns' source indices and weights are computed once, then
    /// every row combines 16 output pixels per step (the same products and sums as the general path).
    private static func bilinearSingleChannel(input: Tensor, output: Tensor, coordinates: ResizeCoordinates,
                                              activation: Activation, threads: Int) {
        let inShape = input.shape, outShape = output.shape
        let source = UnsafePointer(input.data), destination = output.data
        let width = outShape.w, vectors = (width + vectorWidth - 1) / vectorWidth
        withColumns(inputWidth: inShape.w, outputWidth: width, coordinates: coordinates) { columns, right in
            forEachOutputRow(outShape, threads: threads) { row in
                let b = row / outShape.h, oy = row % outShape.h
                let sy = coordinates.source(oy, input: inShape.h, output: outShape.h)
                let y0 = min(Int(sy), inShape.h - 1), y1 = min(y0 + 1, inShape.h - 1)
                let h1 = Vector(repeating: min(sy - Float(y0), 1)), h0 = 1 - h1
                let top = source + (b * inShape.h + y0) * inShape.w, bottom = source + (b * inShape.h + y1) * inShape.w
                let out = destination + row * width
                for vector in 0 ..< vectors {
                    let first = vector &* vectorWidth
                    // Gathered into plain float arrays, then loaded whole: setting a vector's lanes
                    // one by one cost 28 ns per output on AVX2 (two registers per vector).
                    var t0 = InlineArray<16, Float>(repeating: 0), t1 = t0, b0 = t0, b1 = t0
                    for lane in 0 ..< vectorWidth {
                        let x0 = columns[2 &* (first &+ lane)], x1 = columns[2 &* (first &+ lane) &+ 1]
                        t0[lane] = top[x0]; t1[lane] = top[x1]; b0[lane] = bottom[x0]; b1[lane] = bottom[x1]
                    }
                    let w1 = loadVector(right + first), w0 = 1 - w1
                    let upper = w0 * gathered(t0) + w1 * gathered(t1), lower = w0 * gathered(b0) + w1 * gathered(b1)
                    storeVector(activation.apply(h0 * upper + h1 * lower), out + first, lanes: min(vectorWidth, width &- first))
                }
            }
        }
    }

    /// The 16 gathered samples as one vector.
    @inline(__always)
    private static func gathered(_ samples: InlineArray<16, Float>) -> Vector {
        unsafeBitCast(samples, to: Vector.self)
    }

    /// Nearest-neighbour resizing; see `ResizeCoordinates.nearest` for the index rule.
    public static func nearest(input: Tensor, output: Tensor, coordinates: ResizeCoordinates,
                               threads: Int = Parallel.defaultThreads) {
        let (inShape, outShape) = checkShapes(input, output)
        let source = UnsafePointer(input.data), destination = output.data, channels = inShape.c
        forEachOutputRow(outShape, threads: threads) { row in
            let b = row / outShape.h, oy = row % outShape.h
            let y = coordinates.nearest(oy, input: inShape.h, output: outShape.h)
            let inRow = source + (b * inShape.h + y) * inShape.w * channels
            let out = destination + row * outShape.w * channels
            for ox in 0 ..< outShape.w {
                let x = coordinates.nearest(ox, input: inShape.w, output: outShape.w)
                (out + ox * channels).update(from: inRow + x * channels, count: channels)
            }
        }
    }

    /// Runs `body` for every output row index (`b * H_out + oy`), in parallel parts of at least
    /// `WorkGate.bytesPerPart`: a row writes its floats and reads about as many; an output of the
    /// one-channel path (four gathered samples, the activation) costs as long as moving ~128 bytes
    /// (measured: 2.8 ns per output of a 256² sigmoid upsample).
    @inline(__always)
    private static func forEachOutputRow(_ outShape: TensorShape, threads: Int, _ body: (Int) -> Void) {
        let bytesPerOutput = outShape.c == 1 ? 128 : 8
        let minimumRows = WorkGate.minimumItems(bytesPerItem: bytesPerOutput * outShape.w * outShape.c)
        Parallel.forEach(count: outShape.n * outShape.h, threads: threads, minimumPerPart: minimumRows) { rows in
            for row in rows { body(row) }
        }
    }

    private static func checkShapes(_ input: Tensor, _ output: Tensor) -> (TensorShape, TensorShape) {
        let a = input.shape, b = output.shape
        precondition(a.n == b.n && a.c == b.c, "resize keeps N and C: input \(a), output \(b)")
        precondition(a.h >= 1 && a.w >= 1 && b.h >= 1 && b.w >= 1, "resize needs non-empty images: input \(a), output \(b)")
        precondition(input !== output, "resize cannot run in place")
        return (a, b)
    }
}
