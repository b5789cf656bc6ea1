import LiftImage
import LiftTensor

/// Shrinking RGBA images by area averaging.
public enum AreaDownscale {
    /// `image` shrunk so its longer side is `maxLongSide` (unchanged when it already fits).
    /// The other side is scaled by the same factor and rounded, at least 1.
    public static func fit(_ image: RGBAImage, maxLongSide: Int, threads: Int = Parallel.defaultThreads) -> RGBAImage {
        precondition(maxLongSide >= 1, "maxLongSide must be at least 1")
        let long = max(image.width, image.height)
        guard long > maxLongSide else { return image }
        let scale = Double(maxLongSide) / Double(long)
        let width = image.width >= image.height ? maxLongSide : max(1, Int((Double(image.width) * scale).rounded()))
        let height = image.height > image.width ? maxLongSide : max(1, Int((Double(image.height) * scale).rounded()))
        return resize(image, width: width, height: height, threads: threads)
    }

    /// `image` resized down to `width × height` (each no larger than the source's) by area averaging:
    /// each output pixel is the coverage-weighted mean of the source pixels under it, averaged with
    /// premultiplied alpha so transparent pixels lend no colour.
    public static func resize(_ image: RGBAImage, width: Int, height: Int, threads: Int = Parallel.defaultThreads) -> RGBAImage {
        precondition(width >= 1 && height >= 1 && width <= image.width && height <= image.height,
                     "area downscale needs 1 ≤ output ≤ input")
        let columns = AreaTaps(outputCount: width, inputCount: image.width)
        let rows = AreaTaps(outputCount: height, inputCount: image.height)
        let sourceWidth = image.width
        // Horizontal pass to premultiplied floats: image.height × width.
        var horizontal = [SIMD4<Float>](repeating: SIMD4(), count: image.height * width)
        image.pixels.withUnsafeBufferPointer { src in
            horizontal.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                Parallel.forEach(count: image.height, threads: threads, minimumPerPart: 16) { range in
                    for y in range {
                        let row = src.nonEmptyBase + y &* sourceWidth &* 4
                        for x in 0 ..< width {
                            var sum = SIMD4<Float>()
                            for t in columns.offsets[x] ..< columns.offsets[x + 1] {
                                let p = row + columns.index[t] &* 4
                                let a = Float(p[3])
                                sum += columns.weight[t] * SIMD4(Float(p[0]) * a, Float(p[1]) * a, Float(p[2]) * a, a)
                            }
                            dst[y &* width &+ x] = sum
                        }
                    }
                }
            }
        }
        var output = [UInt8](repeating: 0, count: width * height * 4)
        horizontal.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out in
                nonisolated(unsafe) let out = out
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 4) { range in
                    for y in range {
                        for x in 0 ..< width {
                            var sum = SIMD4<Float>()
                            for t in rows.offsets[y] ..< rows.offsets[y + 1] {
                                sum += rows.weight[t] * src[rows.index[t] &* width &+ x]
                            }
                            let o = (y &* width &+ x) &* 4
                            let a = sum[3], alphaByte = min(max(a, 0), 255).rounded()
                            // Colour only where the alpha byte is non-zero: a pixel written as fully
                            // transparent keeps nothing of the photo (the cut-out's contract).
                            if alphaByte > 0 {
                                out[o] = UInt8(min(max(sum[0] / a, 0), 255).rounded())
                                out[o &+ 1] = UInt8(min(max(sum[1] / a, 0), 255).rounded())
                                out[o &+ 2] = UInt8(min(max(sum[2] / a, 0), 255).rounded())
                            }
                            out[o &+ 3] = UInt8(alphaByte)
                        }
                    }
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: output)
    }
}

/// Area-averaging weights along one axis: output `i` covers input interval `[i·S, (i+1)·S)`,
/// S = input/output, and each input pixel weighs its overlap / S.
struct AreaTaps {
    /// Taps of output `i` are `offsets[i] ..< offsets[i + 1]`.
    var offsets: [Int] = [0]
    /// Input index of each tap.
    var index: [Int] = []
    /// Weight of each tap; the weights of one output sum to 1.
    var weight: [Float] = []

    init(outputCount: Int, inputCount: Int) {
        let step = Double(inputCount) / Double(outputCount)
        for i in 0 ..< outputCount {
            let lower = Double(i) * step, upper = Double(i + 1) * step
            var k = Int(lower.rounded(.down))
            while k < inputCount && Double(k) < upper {
                let overlap = min(upper, Double(k + 1)) - max(lower, Double(k))
                if overlap > 1e-9 {
                    index.append(k)
                    weight.append(Float(overlap / step))
                }
                k += 1
            }
            offsets.append(index.count)
        }
    }
}
