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

    /// A 0/1 map: 1 where `map >= threshold`, else 0.
    public static func binary(_ map: FloatMap, threshold: Float, threads: Int = Parallel.defaultThreads) -> FloatMap {
        var values = [Float](repeating: 0, count: map.values.count)
        map.values.withUnsafeBufferPointer { src in
            values.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                Parallel.forEach(count: src.count, threads: threads, minimumPerPart: 1 << 16) { range in
                    for i in range { dst[i] = src[i] >= threshold ? 1 : 0 }
                }
            }
        }
        return FloatMap(width: map.width, height: map.height, values: values)
    }
}
