import LiftImage
import LiftTensor

/// The blurred-photo background.
enum BackgroundBlur {
    /// The photo's RGB (0…255) blurred by three box passes of radius `radius / 3` (about a Gaussian
    /// of σ ≈ radius / 2.8), leaving the subject out: a normalised convolution with weight
    /// `1 - α + 0.001`, so subject colours do not halo into the background (the small floor keeps
    /// areas deep inside the subject defined). A photo with transparency is blurred premultiplied (its
    /// alpha joins the weight, so hidden colours under alpha 0 lend nothing) and its blurred alpha
    /// becomes the backdrop's opacity. Computed on the reduced grid; returned as four planes (R, G,
    /// B, opacity 0…1: all 1 for an opaque photo) to be sampled with the grid.
    static func blurred(_ photo: RGBAImage, excluding alpha: FloatMap, radius: Int, threads: Int) -> ([Float], WorkingResolution) {
        let grid = WorkingResolution(width: photo.width, height: photo.height,
                                     block: GuidedFilter.defaultSubsampling(width: photo.width, height: photo.height))
        let n = grid.lowCount
        let opaque = photo.isOpaque
        // Planes: R, G, B, subject alpha → weight; with transparency also the photo's alpha → weight.
        var planes = [Float](repeating: 0, count: (opaque ? 4 : 5) * n)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { scratch.deallocate() }
        let boxRadius = grid.lowRadius(Double(radius) / 3)
        let source = opaque ? photo : premultiplied(photo, threads: threads)
        planes.withUnsafeMutableBufferPointer { buffer in
            let p = buffer.nonEmptyBase
            nonisolated(unsafe) let planes = p
            source.pixels.withUnsafeBufferPointer { rgba in
                alpha.values.withUnsafeBufferPointer { a in
                    BlockAverage.rgbAndMap(rgba: rgba.nonEmptyBase, map: a.nonEmptyBase, width: photo.width,
                                           height: photo.height, block: grid.block, into: (p, p + n, p + 2 * n, p + 3 * n),
                                           threads: threads)
                }
            }
            if !opaque { photoAlpha(photo, block: grid.block, into: p + 4 * n, threads: threads) }
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
                    let covered = planes[3 &* n &+ i]
                    if opaque {
                        let inverse = 1 / covered
                        for c in 0 ..< 3 { planes[c &* n &+ i] *= inverse }
                        planes[3 &* n &+ i] = 1
                    } else {
                        // Straight colour where any photo alpha reached; opacity = Σ w·a / Σ w.
                        let inverse = covered > 0 ? 1 / covered : 0
                        for c in 0 ..< 3 { planes[c &* n &+ i] *= inverse }
                        planes[3 &* n &+ i] = min(max(covered / planes[4 &* n &+ i], 0), 1)
                    }
                }
            }
        }
        return (Array(planes[0 ..< 4 * n]), grid)
    }

    /// `photo` with its colour multiplied by its alpha (rounded), so averaging it weighs by alpha.
    private static func premultiplied(_ photo: RGBAImage, threads: Int) -> RGBAImage {
        var pixels = photo.pixels
        pixels.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let p = buffer.nonEmptyBase
            Parallel.forEach(count: photo.pixelCount, threads: threads, minimumPerPart: 1 << 16) { range in
                for i in range {
                    let a = UInt32(p[i &* 4 &+ 3])
                    for c in 0 ..< 3 { p[i &* 4 &+ c] = UInt8((UInt32(p[i &* 4 &+ c]) * a + 127) / 255) }
                }
            }
        }
        return RGBAImage(width: photo.width, height: photo.height, pixels: pixels)
    }

    /// The photo's alpha (0…1) averaged over `block`×`block` blocks into `plane` (⌈w/s⌉ × ⌈h/s⌉).
    private static func photoAlpha(_ photo: RGBAImage, block: Int, into plane: UnsafeMutablePointer<Float>, threads: Int) {
        let width = photo.width, height = photo.height
        let lowWidth = (width + block - 1) / block, lowHeight = (height + block - 1) / block
        nonisolated(unsafe) let plane = plane
        photo.pixels.withUnsafeBufferPointer { rgba in
            let rgba = rgba.nonEmptyBase
            Parallel.forEach(count: lowHeight, threads: threads, minimumPerPart: 8) { lowRows in
                for ly in lowRows {
                    let y0 = ly * block, y1 = min(y0 + block, height)
                    for lx in 0 ..< lowWidth {
                        let x0 = lx * block, x1 = min(x0 + block, width)
                        var sum = 0
                        for y in y0 ..< y1 { for x in x0 ..< x1 { sum &+= Int(rgba[(y &* width &+ x) &* 4 &+ 3]) } }
                        plane[ly &* lowWidth &+ lx] = Float(sum) / Float(255 * (y1 - y0) * (x1 - x0))
                    }
                }
            }
        }
    }
}
