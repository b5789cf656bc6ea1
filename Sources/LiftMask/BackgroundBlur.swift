import LiftImage
import LiftTensor

/// The blurred-photo background.
enum BackgroundBlur {
    /// The photo's RGB (0…255) blurred by three box passes of radius `radius / 3` (about a Gaussian
    /// of σ ≈ radius / 2.8), leaving the subject out: a normalised convolution with weight
    /// `1 - α + 0.001`, so subject colours do not halo into the background (the small floor keeps
    /// areas deep inside the subject defined). Computed on the reduced grid; returned as three planes
    /// to be sampled with the grid.
    static func blurred(_ photo: RGBAImage, excluding alpha: FloatMap, radius: Int, threads: Int) -> ([Float], WorkingResolution) {
        let grid = WorkingResolution(width: photo.width, height: photo.height,
                                     block: GuidedFilter.defaultSubsampling(width: photo.width, height: photo.height))
        let n = grid.lowCount
        var planes = [Float](repeating: 0, count: 4 * n)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { scratch.deallocate() }
        let boxRadius = grid.lowRadius(Double(radius) / 3)
        planes.withUnsafeMutableBufferPointer { buffer in
            let p = buffer.nonEmptyBase
            nonisolated(unsafe) let planes = p
            photo.pixels.withUnsafeBufferPointer { rgba in
                alpha.values.withUnsafeBufferPointer { a in
                    BlockAverage.rgbAndMap(rgba: rgba.nonEmptyBase, map: a.nonEmptyBase, width: photo.width,
                                           height: photo.height, block: grid.block, into: (p, p + n, p + 2 * n, p + 3 * n),
                                           threads: threads)
                }
            }
            Parallel.forEach(count: n, threads: threads, minimumPerPart: 1 << 14) { range in
                for i in range {
                    let weight = 1 - min(max(planes[3 &* n &+ i], 0), 1) + 0.001
                    for c in 0 ..< 3 { planes[c &* n &+ i] *= weight * 255 }
                    planes[3 &* n &+ i] = weight
                }
            }
            for _ in 0 ..< 3 {
                for plane in 0 ..< 4 {
                    BoxFilter.mean(p + plane * n, scratch: scratch, width: grid.lowWidth, height: grid.lowHeight,
                                   radius: boxRadius, threads: threads)
                }
            }
            Parallel.forEach(count: n, threads: threads, minimumPerPart: 1 << 14) { range in
                for i in range {
                    let inverse = 1 / planes[3 &* n &+ i]
                    for c in 0 ..< 3 { planes[c &* n &+ i] *= inverse }
                }
            }
        }
        return (Array(planes[0 ..< 3 * n]), grid)
    }
}
