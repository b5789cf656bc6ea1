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
    // @unchecked: the nodes are written once in init and only read afterwards.
    private let grid: WorkingResolution
    /// Per coarse node (row-major, `grid.lowCount`): lanes 0-2 F̂ R, G, B (0…1), 3 the window's share
    /// of sure foreground, 4-6 B̂ R, G, B, 7 its share of sure background (one load per bilinear tap).
    private let nodes: UnsafeMutablePointer<SIMD8<Float>>

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
        nodes = .allocate(capacity: n)
        let longer = Double(max(grid.width, grid.height))
        // Planes: 0-2 I, 3 α, 4 box(α) over the erosion, 5 box-filter scratch, 6-13 the sure means.
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 14 * n)
        defer { planes.deallocate() }
        Self.coarsen(fine, grid: fineGrid, factor: factor, into: planes, lowWidth: grid.lowWidth, lowHeight: grid.lowHeight)
        Self.sureMeans(planes, grid: grid, erosion: grid.lowRadius(longer / 100), radius: grid.lowRadius(longer / 20),
                       threads: threads)
        for i in 0 ..< n {
            var node = SIMD8<Float>()
            for lane in 0 ..< 8 { node[lane] = planes[(6 &+ lane) &* n &+ i] }
            nodes[i] = node
        }
    }

    deinit { nodes.deallocate() }

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

    /// Sure foreground (box(α) over `erosion` cells ≥ 0.99) and sure background (≤ 0.01), from I
    /// (planes 0-2) and α (3): their mean colours and window shares over `radius` cells into planes
    /// 6-13 (F̂ R, G, B, foreground share, B̂ R, G, B, background share); 4-5 are scratch.
    private static func sureMeans(_ p: UnsafeMutablePointer<Float>, grid: WorkingResolution, erosion: Int, radius: Int,
                                  threads: Int) {
        let n = grid.lowCount
        (p + 4 * n).update(from: p + 3 * n, count: n)
        BoxFilter.mean(p + 4 * n, scratch: p + 5 * n, width: grid.lowWidth, height: grid.lowHeight,
                       radius: erosion, threads: threads)
        for i in 0 ..< n {
            let cover = p[4 &* n &+ i]
            let foreground: Float = cover >= 0.99 ? 1 : 0, background: Float = cover <= 0.01 ? 1 : 0
            for c in 0 ..< 3 {
                p[(6 &+ c) &* n &+ i] = p[c &* n &+ i] * foreground
                p[(10 &+ c) &* n &+ i] = p[c &* n &+ i] * background
            }
            p[9 &* n &+ i] = foreground
            p[13 &* n &+ i] = background
        }
        for plane in 6 ..< 14 {
            BoxFilter.mean(p + plane * n, scratch: p + 5 * n, width: grid.lowWidth, height: grid.lowHeight,
                           radius: radius, threads: threads)
        }
        for i in 0 ..< n {
            let f = 1 / (p[9 &* n &+ i] + 1e-5), b = 1 / (p[13 &* n &+ i] + 1e-5)
            for c in 0 ..< 3 {
                p[(6 &+ c) &* n &+ i] *= f
                p[(10 &+ c) &* n &+ i] *= b
            }
        }
    }

    /// `estimate` (a foreground colour R, G, B, 0…1, lane 3 ignored and returned 0) at photo pixel
    /// (x, y) after the correction; unchanged (lane 3 zeroed) where the window holds too little sure
    /// foreground or background.
    @inline(__always)
    func corrected(_ estimate: SIMD4<Float>, x: Int, y: Int) -> SIMD4<Float> {
        var estimate = estimate
        estimate[3] = 0
        let w = grid.lowWidth
        let top = grid.rows.first[y] &* w, bottom = grid.rows.second[y] &* w
        let left = grid.columns.first[x], right = grid.columns.second[x]
        let wx = grid.columns.weight[x], wy = grid.rows.weight[y]
        let upper = nodes[top &+ left] + wx * (nodes[top &+ right] - nodes[top &+ left])
        let lower = nodes[bottom &+ left] + wx * (nodes[bottom &+ right] - nodes[bottom &+ left])
        let model = upper + wy * (lower - upper)
        var foreground = model.lowHalf, background = model.highHalf
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
