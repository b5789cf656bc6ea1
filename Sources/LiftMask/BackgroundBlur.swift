import LiftImage
import LiftTensor

/// The blurred-photo background.
enum BackgroundBlur {
    /// The photo's RGB (0…255) blurred by three box passes of radius `radius / 3` (about a Gaussian
    /// of σ ≈ radius / 2.8), leaving the subject out: a normalised convolution with weight
    /// `1 - α + 0.001`, so subject colours do not halo into the background (the small floor keeps
    /// areas deep inside the subject defined). Computed on the reduced grid; returned as four planes
    /// to be sampled with the grid: R, G, B and opacity 1 for an opaque photo. A photo with
    /// transparency is blurred premultiplied, its alpha joining the weight so hidden colours under
    /// alpha 0 lend nothing: the planes are then the premultiplied colour and the blurred opacity
    /// (0…1), to be interpolated as they are and divided after sampling (`straightened`).
    /// `opaque` says whether every photo alpha is 255 (`photo.isOpaque`, which the caller has at hand).
    static func blurred(_ photo: RGBAImage, excluding alpha: MapRows, radius: Int, opaque: Bool,
                        threads: Int) -> ([Float], WorkingResolution) {
        let grid = WorkingResolution(width: photo.width, height: photo.height,
                                     block: GuidedFilter.defaultSubsampling(width: photo.width, height: photo.height))
        let n = grid.lowCount
        // Planes: R, G, B, subject alpha → weight; with transparency the colour is premultiplied and a
        // fifth plane holds the photo's alpha → the weight's sum.
        var planes = [Float](repeating: 0, count: (opaque ? 4 : 5) * n)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { scratch.deallocate() }
        let boxRadius = grid.lowRadius(Double(radius) / 3)
        planes.withUnsafeMutableBufferPointer { buffer in
            let p = buffer.nonEmptyBase
            nonisolated(unsafe) let planes = p
            photo.pixels.withUnsafeBufferPointer { rgba in
                if opaque {
                    BlockAverage.rgbAndMap(rgba: rgba.nonEmptyBase, map: alpha, block: grid.block,
                                           into: (p, p + n, p + 2 * n, p + 3 * n), threads: threads)
                } else {
                    premultipliedAverages(rgba: rgba.nonEmptyBase, map: alpha, block: grid.block, into: p, planeSize: n,
                                          threads: threads)
                }
            }
            Parallel.forEach(count: n, threads: threads, minimumPerPart: 1 << 14) { range in
                for i in range {
                    let weight = 1 - min(max(planes[3 &* n &+ i], 0), 1) + 0.001
                    for c in 0 ..< 3 { planes[c &* n &+ i] *= weight * 255 }
                    if opaque {
                        planes[3 &* n &+ i] = weight
                    } else {
                        planes[3 &* n &+ i] = weight * planes[4 &* n &+ i]
                        planes[4 &* n &+ i] = weight
                    }
                }
            }
            for _ in 0 ..< 3 {
                for plane in 0 ..< (opaque ? 4 : 5) {
                    BoxFilter.mean(p + plane * n, scratch: scratch, width: grid.lowWidth, height: grid.lowHeight,
                                   radius: boxRadius, threads: threads)
                }
            }
            Parallel.forEach(count: n, threads: threads, minimumPerPart: 1 << 14) { range in
                for i in range {
                    // Divided by the weights' sum (≥ 0.001, never by the photo-alpha-weighted sum, which
                    // can be a rounding residue): opaque, the colour; else premultiplied colour, opacity.
                    let inverse = 1 / planes[(opaque ? 3 : 4) &* n &+ i]
                    for c in 0 ..< (opaque ? 3 : 4) { planes[c &* n &+ i] *= inverse }
                    if opaque { planes[3 &* n &+ i] = 1 }
                }
            }
        }
        return (Array(planes[0 ..< 4 * n]), grid)
    }

    /// A sample of the premultiplied planes as straight colour (0…255) and opacity (0…1), clamped:
    /// box-filter residues can leave a premultiplied colour slightly off where the opacity is ~0.
    @inline(__always)
    static func straightened(_ sample: SIMD4<Float>) -> SIMD4<Float> {
        let opacity = min(max(sample[3], 0), 1)
        guard opacity > 1e-6 else { return SIMD4() }
        var color = sample / opacity
        color = color.replacing(with: 0, where: .!(color .> 0))
        color = pointwiseMin(color, SIMD4(repeating: 255))
        color[3] = opacity
        return color
    }

    /// Block averages of a photo with transparency into five planes of `planeSize`: R·a, G·a, B·a
    /// (0…1), the subject alpha `map`, and a (0…1), so colours count by their photo alpha, unrounded.
    private static func premultipliedAverages(rgba: UnsafePointer<UInt8>, map: MapRows, block: Int,
                                              into planes: UnsafeMutablePointer<Float>, planeSize n: Int, threads: Int) {
        let width = map.width, lowWidth = (width + block - 1) / block
        nonisolated(unsafe) let planes = planes
        BlockAverage.forEachBlockRow(of: map, block: block, threads: threads) { ly, y0, y1, rowsOfBlock in
            for lx in 0 ..< lowWidth {
                let x0 = lx * block, x1 = min(x0 + block, width)
                // Premultiplied sums in integers (exact), the subject alpha in Float.
                var red = 0, green = 0, blue = 0, opacity = 0
                var mapSum: Float = 0
                for y in y0 ..< y1 {
                    let values = rowsOfBlock[y &- y0]
                    for x in x0 ..< x1 {
                        let pixel = rgba + (y &* width &+ x) &* 4, a = Int(pixel[3])
                        red &+= Int(pixel[0]) &* a; green &+= Int(pixel[1]) &* a; blue &+= Int(pixel[2]) &* a
                        opacity &+= a
                        mapSum += values[x]
                    }
                }
                let scale = 1 / Float((y1 - y0) * (x1 - x0)), o = ly &* lowWidth &+ lx
                planes[o] = Float(red) * (1 / 65025) * scale
                planes[n &+ o] = Float(green) * (1 / 65025) * scale
                planes[2 &* n &+ o] = Float(blue) * (1 / 65025) * scale
                planes[3 &* n &+ o] = mapSum * scale
                planes[4 &* n &+ o] = Float(opacity) * (1 / 255) * scale
            }
        }
    }
}
