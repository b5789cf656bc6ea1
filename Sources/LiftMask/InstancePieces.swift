import LiftImage
import LiftTensor
import Synchronization

/// Step 3 of `InstanceGrouping`: every foreground pixel's vote for an instance centre, and the
/// pieces it makes, kept as runs (the hard mask's runs cut where the vote changes), never as a
/// photo-sized map.
///
/// A pixel at photo `(x, y)` sits at model pixel `((x + 0.5) · w / W − 0.5, (y + 0.5) · h / H − 0.5)`
/// (photo `W × H`, model `w × h`, the photo stretched to the model); adding its offset (the cell
/// maps read with `CellSampler`) gives where it says its centre is, and it votes for the nearest
/// peak (the first on a tie). Piece `c · peaks + k + 1` holds the pixels of component `c` (0-based,
/// raster order of first pixel) that vote for peak `k`. Arithmetic is Double where
/// `Tools/instances/group.py` uses float64, so both find the same votes.
struct InstancePieces {
    /// Photo size.
    let width: Int, height: Int
    /// Peaks (the vote's candidates); pieces run from 1 to `components · peakCount`.
    let peakCount: Int, components: Int
    /// Runs: row `y` has `rowOffsets[y] ..< rowOffsets[y + 1]`, sorted, disjoint, each of one piece.
    var rowOffsets: [Int], start: [Int32], end: [Int32], piece: [Int32]
    /// Per piece (index 0 unused): pixels, and of those the pixels whose vote landed closer than the
    /// join distance to their peak, the largest such miss, and the smallest miss at or past it
    /// (enough to compare the median miss with the join distance exactly).
    var area: [Int], near: [Int], nearMax: [Double], farMin: [Double]

    /// Number of pieces (ids 1…`pieceCount`).
    var pieceCount: Int { components * peakCount }

    /// Votes every pixel of `labels`' instances; `componentOfLabel[l]` is label `l`'s component.
    init(labels: RunLabels, componentOfLabel: [Int32], components: Int, peaks: [CentrePeaks.Peak], cues: InstanceCues,
         joinDistance: Double, threads: Int) {
        let W = labels.width, H = labels.height, n = peaks.count
        width = W
        height = H
        peakCount = n
        self.components = components
        let pieceCount = components * n
        // Peaks and pixel positions in model pixels.
        let sy = Double(cues.modelHeight) / Double(cues.cellHeight), sx = Double(cues.modelWidth) / Double(cues.cellWidth)
        let peakY = peaks.map { Double($0.row) * sy + (sy - 1) / 2 }, peakX = peaks.map { Double($0.column) * sx + (sx - 1) / 2 }
        let modelX = (0 ..< W).map { (Double($0) + 0.5) * Double(cues.modelWidth) / Double(W) - 0.5 }
        let sampler = CellSampler(cellWidth: cues.cellWidth, cellHeight: cues.cellHeight, width: W, height: H)
        let bandRows = 64, bandCount = (H + bandRows - 1) / bandRows
        final class Band: @unchecked Sendable {
            var start: [Int32] = [], end: [Int32] = [], piece: [Int32] = [], rowCounts: [Int] = []
        }
        final class Tally: @unchecked Sendable {
            var area: [Int], near: [Int], nearMax: [Double], farMin: [Double]
            init(_ count: Int) {
                area = [Int](repeating: 0, count: count)
                near = area
                nearMax = [Double](repeating: -.infinity, count: count)
                farMin = [Double](repeating: .infinity, count: count)
            }
        }
        let bands = (0 ..< bandCount).map { _ in Band() }
        let tallies = Mutex<[Tally]>([])
        cues.offsetY.values.withUnsafeBufferPointer { offsetY in
            cues.offsetX.values.withUnsafeBufferPointer { offsetX in
                nonisolated(unsafe) let offsetY = offsetY.nonEmptyBase, offsetX = offsetX.nonEmptyBase
                Parallel.forEach(count: bandCount, threads: threads) { range in
                    let tally = Tally(pieceCount + 1)
                    defer { tallies.withLock { $0.append(tally) } }
                    for b in range {
                        let band = bands[b]
                        for y in b * bandRows ..< min(H, (b + 1) * bandRows) {
                            let before = band.start.count
                            let vy = (Double(y) + 0.5) * Double(cues.modelHeight) / Double(H) - 0.5
                            labels.forEachLabelledRun(inRow: y) { columns, label in
                                let base = Int(componentOfLabel[Int(label)]) * n
                                var current: Int32 = -1
                                for x in columns {
                                    let ty = vy + Double(sampler.value(offsetY, x: x, y: y))
                                    let tx = modelX[x] + Double(sampler.value(offsetX, x: x, y: y))
                                    var best = 0, bestD2 = Double.infinity
                                    for k in 0 ..< n {
                                        let dy = ty - peakY[k], dx = tx - peakX[k]
                                        let d2 = dy * dy + dx * dx
                                        if d2 < bestD2 { (best, bestD2) = (k, d2) }
                                    }
                                    let p = Int32(base + best + 1), miss = bestD2.squareRoot()
                                    tally.area[Int(p)] += 1
                                    if miss < joinDistance {
                                        tally.near[Int(p)] += 1
                                        tally.nearMax[Int(p)] = max(tally.nearMax[Int(p)], miss)
                                    } else {
                                        tally.farMin[Int(p)] = min(tally.farMin[Int(p)], miss)
                                    }
                                    if p == current, band.end.last == Int32(x) {
                                        band.end[band.end.count - 1] = Int32(x + 1)
                                    } else {
                                        band.start.append(Int32(x))
                                        band.end.append(Int32(x + 1))
                                        band.piece.append(p)
                                        current = p
                                    }
                                }
                            }
                            band.rowCounts.append(band.start.count - before)
                        }
                    }
                }
            }
        }
        // Bands in order; tallies summed (integer counts, maxima and minima: the same in any order).
        var offsets = [Int](repeating: 0, count: H + 1)
        var y = 0
        for band in bands {
            for count in band.rowCounts {
                offsets[y + 1] = offsets[y] + count
                y += 1
            }
        }
        rowOffsets = offsets
        start = bands.flatMap(\.start)
        end = bands.flatMap(\.end)
        piece = bands.flatMap(\.piece)
        var total = Tally(pieceCount + 1)
        total = tallies.withLock { $0 }.reduce(into: total) { sum, t in
            for i in 0 ... pieceCount {
                sum.area[i] += t.area[i]
                sum.near[i] += t.near[i]
                sum.nearMax[i] = max(sum.nearMax[i], t.nearMax[i])
                sum.farMin[i] = min(sum.farMin[i], t.farMin[i])
            }
        }
        area = total.area
        near = total.near
        nearMax = total.nearMax
        farMin = total.farMin
    }

    /// Calls `body(a, b, y, x0, x1)` for every stretch of 4-neighbouring pixel pairs of different
    /// pieces `a` and `b`: horizontal pairs `(y, x0 − 1)`–`(y, x0)` reported with `x1 == x0` and
    /// `vertical == false`; vertical pairs `(y, x)`–`(y + 1, x)` for `x` in `x0 ..< x1`.
    func forEachBorder(_ body: (_ a: Int32, _ b: Int32, _ y: Int, _ x0: Int, _ x1: Int, _ vertical: Bool) -> Void) {
        for y in 0 ..< height {
            let row = rowOffsets[y] ..< rowOffsets[y + 1]
            for r in row.dropFirst() where start[r] == end[r - 1] && piece[r] != piece[r - 1] {
                body(piece[r - 1], piece[r], y, Int(start[r]), Int(start[r]), false)
            }
            guard y + 1 < height else { continue }
            var i = row.lowerBound, j = rowOffsets[y + 1]
            let jEnd = rowOffsets[y + 2]
            while i < row.upperBound, j < jEnd {
                let lo = max(start[i], start[j]), hi = min(end[i], end[j])
                if lo < hi, piece[i] != piece[j] { body(piece[i], piece[j], y, Int(lo), Int(hi), true) }
                if end[i] <= end[j] { i += 1 } else { j += 1 }
            }
        }
    }
}
