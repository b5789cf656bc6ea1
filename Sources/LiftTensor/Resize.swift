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
    /// PyTorch: `h0λ·(w0λ·x00 + w1λ·x01) + h1λ·(w0λ·x10 + w1λ·x11)`.
    public static func bilinear(input: Tensor, output: Tensor, coordinates: ResizeCoordinates,
                                threads: Int = Parallel.defaultThreads) {
        let (inShape, outShape) = checkShapes(input, output)
        let source = UnsafePointer(input.data), destination = output.data, channels = inShape.c
        forEachOutputRow(outShape, threads: threads) { row in
            let b = row / outShape.h, oy = row % outShape.h
            let sy = coordinates.source(oy, input: inShape.h, output: outShape.h)
            let y0 = min(Int(sy), inShape.h - 1), y1 = min(y0 + 1, inShape.h - 1)
            let h1 = Vector(repeating: min(sy - Float(y0), 1)), h0 = 1 - h1
            let top = source + (b * inShape.h + y0) * inShape.w * channels
            let bottom = source + (b * inShape.h + y1) * inShape.w * channels
            let out = destination + row * outShape.w * channels
            for ox in 0 ..< outShape.w {
                let sx = coordinates.source(ox, input: inShape.w, output: outShape.w)
                let x0 = min(Int(sx), inShape.w - 1), x1 = min(x0 + 1, inShape.w - 1)
                let w1 = Vector(repeating: min(sx - Float(x0), 1)), w0 = 1 - w1
                var c0 = 0
                while c0 < channels {
                    let upper = w0 * loadVector(top + x0 * channels + c0) + w1 * loadVector(top + x1 * channels + c0)
                    let lower = w0 * loadVector(bottom + x0 * channels + c0) + w1 * loadVector(bottom + x1 * channels + c0)
                    storeVector(h0 * upper + h1 * lower, out + ox * channels + c0, lanes: min(vectorWidth, channels - c0))
                    c0 += vectorWidth
                }
            }
        }
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
    /// ~32 K output floats: smaller resizes are not worth waking a thread.
    @inline(__always)
    private static func forEachOutputRow(_ outShape: TensorShape, threads: Int, _ body: (Int) -> Void) {
        let minimumRows = max(1, (1 << 15) / max(outShape.w * outShape.c, 1))
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
