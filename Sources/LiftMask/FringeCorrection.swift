import LiftTensor

/// The fringe correction of decontamination: pulls edge colours that lie towards the local background
/// back to the local foreground colour.
///
/// Blur fusion (`ForegroundEstimation`) trusts alpha; where alpha is too high (a band of background
/// the mask keeps, common when a 256-px map is upsampled to a large photo) it keeps that
/// background's colour, and the cut-out shows a fringe on white. This corrects every pixel near the
/// outline, opaque ones included, with a colour model taken from sure pixels only: F̂ and B̂ are the
/// photo's mean colours over the foreground and the background eroded by `L/100` px (L the photo's
/// longer side; so a kept band of background does not count as foreground), in a window of `L/20`
/// px. With d = B̂ − F̂ and t = (F − F̂)·d / |d|² (how far the estimate F lies towards the
/// background), F moves towards F̂ by w·p:
/// - p = clamp((t − 0.2) / 0.5, 0, 1): colours a fifth of the way or less are the subject's own
///   variation and stay, from 0.7 of the way the pixel takes F̂;
/// - w = band × |d|² / (|d|² + 0.02): band fades the correction out where the window holds little
///   sure background (0 under 2 % of it, 1 from 10 %), the second factor where the two colours are
///   close (no evidence which is which).
///
/// Moving towards F̂ rather than along −d keeps hues real: a pixel whose own background is not B̂
/// would take B̂'s complement. Alpha is never changed. The model lives on a grid 4× coarser than the
/// guided filter's (about 256 cells on the longer side; both windows span cells), read back
/// bilinearly. `Benchmarks/halo.py` measures the fringe.
final class FringeCorrection: @unchecked Sendable {
    // @unchecked: the planes and cell flags are written once in init and only read afterwards.
    private let grid: WorkingResolution
    /// Eight planes of `grid.lowCount` floats: 0-2 F̂ R, G, B (0…1), 3 the window's share of sure
    /// foreground, 4-6 B̂ R, G, B, 7 its share of sure background.
    private let planes: UnsafeMutablePointer<Float>
    /// Per coarse node (row-major): 1 where a photo pixel whose bilinear taps start at this node may
    /// be corrected (the node or its right, lower or lower-right neighbour has over `foregroundStart`
    /// sure foreground and at least `bandStart` sure background in its window), else 0.
    private let nearOutlineCells: UnsafeMutablePointer<UInt8>

    /// Share of sure background in the window from which the correction starts, and where it is whole.
    private static let bandStart: Float = 0.02, bandFull: Float = 0.1
    /// Share of sure foreground a window needs before F̂ is trusted.
    private static let foregroundStart: Float = 0.01

    /// Builds the colour model from `fine`: four planes on `fineGrid` (the guided filter's), the
    /// photo's R, G, B (0…1) and alpha block means.
    init(fine: UnsafePointer<Float>, fineGrid: WorkingResolution, threads: Int) {
        let factor = 4
        grid = WorkingResolution(width: fineGrid.width, height: fineGrid.height, block: fineGrid.block * factor)
        let n = grid.lowCount
        planes = .allocate(capacity: 8 * n)
        nearOutlineCells = .allocate(capacity: n)
        let longer = Double(max(grid.width, grid.height))
        // Scratch: 0-2 I, 3 α, 4 box(α) over the erosion, 5 box-filter scratch.
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 6 * n)
        defer { scratch.deallocate() }
        Self.coarsen(fine, grid: fineGrid, factor: factor, into: scratch, lowWidth: grid.lowWidth, lowHeight: grid.lowHeight)
        sureMeans(scratch, erosion: grid.lowRadius(longer / 100), radius: grid.lowRadius(longer / 20), threads: threads)
        markNearOutline()
    }

    deinit {
        planes.deallocate()
        nearOutlineCells.deallocate()
    }

    /// Means of `factor` × `factor` cells of the four fine planes into the first four planes of `out`
    /// (the coarse grid, `lowWidth` × `lowHeight`; edge cells average the fine cells they cover).
    private static func coarsen(_ fine: UnsafePointer<Float>, grid: WorkingResolution, factor: Int,
                                into out: UnsafeMutablePointer<Float>, lowWidth: Int, lowHeight: Int) {
        let fn = grid.lowCount, n = lowWidth * lowHeight
        for cy in 0 ..< lowHeight {
            let y0 = cy * factor, y1 = min(y0 + factor, grid.lowHeight)
            for cx in 0 ..< lowWidth {
                let x0 = cx * factor, x1 = min(x0 + factor, grid.lowWidth)
                var sum = SIMD4<Float>()
                for y in y0 ..< y1 {
                    for x in x0 ..< x1 {
                        let i = y &* grid.lowWidth &+ x
                        sum += SIMD4(fine[i], fine[fn &+ i], fine[2 &* fn &+ i], fine[3 &* fn &+ i])
                    }
                }
                sum /= Float((y1 - y0) * (x1 - x0))
                let o = cy &* lowWidth &+ cx
                out[o] = sum[0]; out[n &+ o] = sum[1]; out[2 &* n &+ o] = sum[2]; out[3 &* n &+ o] = sum[3]
            }
        }
    }

    /// Sure foreground (box(α) over `erosion` cells ≥ 0.99) and sure background (≤ 0.01), their mean
    /// colours and window shares over `radius` cells into `planes`, from `scratch`'s I and α.
    private func sureMeans(_ scratch: UnsafeMutablePointer<Float>, erosion: Int, radius: Int, threads: Int) {
        let n = grid.lowCount
        let p = planes
        (scratch + 4 * n).update(from: scratch + 3 * n, count: n)
        BoxFilter.mean(scratch + 4 * n, scratch: scratch + 5 * n, width: grid.lowWidth, height: grid.lowHeight,
                       radius: erosion, threads: threads)
        for i in 0 ..< n {
            let cover = scratch[4 &* n &+ i]
            let foreground: Float = cover >= 0.99 ? 1 : 0, background: Float = cover <= 0.01 ? 1 : 0
            for c in 0 ..< 3 {
                p[c &* n &+ i] = scratch[c &* n &+ i] * foreground
                p[(4 &+ c) &* n &+ i] = scratch[c &* n &+ i] * background
            }
            p[3 &* n &+ i] = foreground
            p[7 &* n &+ i] = background
        }
        for plane in 0 ..< 8 {
            BoxFilter.mean(p + plane * n, scratch: scratch + 5 * n, width: grid.lowWidth, height: grid.lowHeight,
                           radius: radius, threads: threads)
        }
        for i in 0 ..< n {
            let f = 1 / (p[3 &* n &+ i] + 1e-5), b = 1 / (p[7 &* n &+ i] + 1e-5)
            for c in 0 ..< 3 {
                p[c &* n &+ i] *= f
                p[(4 &+ c) &* n &+ i] *= b
            }
        }
    }

    private func markNearOutline() {
        let n = grid.lowCount, w = grid.lowWidth, h = grid.lowHeight
        let foreground = planes + 3 &* n, background = planes + 7 &* n
        for y in 0 ..< h {
            for x in 0 ..< w {
                var near = false
                for dy in 0 ... min(1, h - 1 - y) {
                    for dx in 0 ... min(1, w - 1 - x) {
                        let i = (y &+ dy) &* w &+ x &+ dx
                        if background[i] >= Self.bandStart && foreground[i] > Self.foregroundStart { near = true }
                    }
                }
                nearOutlineCells[y &* w &+ x] = near ? 1 : 0
            }
        }
    }

    /// Whether the pixel at photo pixel (x, y) may be changed by `corrected`; where this is false,
    /// `corrected` returns its input.
    @inline(__always)
    func nearOutline(x: Int, y: Int) -> Bool {
        nearOutlineCells[grid.rows.first[y] &* grid.lowWidth &+ grid.columns.first[x]] != 0
    }

    /// `estimate` (a foreground colour R, G, B, 0…1, lane 3 ignored and returned 0) at photo pixel
    /// (x, y) after the correction.
    @inline(__always)
    func corrected(_ estimate: SIMD4<Float>, x: Int, y: Int) -> SIMD4<Float> {
        var estimate = estimate
        estimate[3] = 0
        var foreground = grid.sample4(planes, x: x, y: y), background = grid.sample4(planes + 4 &* grid.lowCount, x: x, y: y)
        let share = background[3]
        guard share > Self.bandStart, foreground[3] > Self.foregroundStart else { return estimate }
        foreground[3] = 0
        background[3] = 0
        let d = background - foreground, d2 = (d * d).sum()
        guard d2 > 1e-6 else { return estimate }
        let t = ((estimate - foreground) * d).sum() / d2
        let pull = min(max((t - 0.2) * (1 / 0.5), 0), 1)
        let weight = min((share - Self.bandStart) / (Self.bandFull - Self.bandStart), 1) * d2 / (d2 + 0.02)
        return estimate + (weight * pull) * (foreground - estimate)
    }
}
