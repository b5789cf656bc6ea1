import LiftImage
import LiftTensor

/// Soft alpha to hard mask.
public enum Threshold {
    /// A hard mask: 255 where `alpha >= threshold`, else 0.
    public static func mask(_ alpha: FloatMap, threshold: Float, threads: Int = Parallel.defaultThreads) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: alpha.values.count)
        alpha.values.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                Parallel.forEach(count: src.count, threads: threads, minimumPerPart: 1 << 16) { range in
                    for i in range { dst[i] = src[i] >= threshold ? 255 : 0 }
                }
            }
        }
        return GrayImage(width: alpha.width, height: alpha.height, pixels: pixels)
    }
}
