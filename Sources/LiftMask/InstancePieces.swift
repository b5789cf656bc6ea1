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
    /// Each peak's position in model pixels (its cell's centre), as the votes measure it.
    let peakY: [Double], peakX: [Double]
    /// Runs: row `y` has `rowOffsets[y] ..< rowOffsets[y + 1]`, sorted, disjoint, each of one piece.
    var rowOffsets: [Int], start: [Int32], end: [Int32], piece: [Int32]
    /// Per piece (index 0 unused): pixels, and of those the pixels whose vote landed closer than the
    /// join distance to their peak, the largest such miss, and the smallest miss at or past it
    /// (enough to compare the median miss with the join distance exactly).
    var area: [Int], near: [Int], nearMax: [Double], farMin: [Double]

    /// Number of pieces (ids 1…`pieceCount`).
    var pieceCount: Int { components * peakCount }

    /// Per peak, the pixels whose vote landed closer than the join distance to it (its support, in
    /// photo pixels): `near` summed over the pieces as voted, whatever their later merges.
    func peakSupport(peaks: Int) -> [Int] {
        var support = [Int](repeating: 0, count: peaks)
        for q in 1 ... pieceCount { support[(q - 1) % peaks] += near[q] }
        return support
    }

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
        self.peakY = peakY
        self.peakX = peakX
        let modelX = (0 ..< W).map { (Double($0) + 0.5) * Double(cues.modelWidth) / Double(W) - 0.5 }
        let sampler = CellSampler(cellWidth: cues.cellWidth, cellHeight: cues.cellHeight, width: W, height: H)
        let bandRows = 64, bandCount = (H + bandRows - 1) / bandRows
        let bands = (0 ..< bandCount).map { _ in Band() }
        let tallies = Mutex<[Tally]>([])
        // The offsets' horizontal pass (cell rows × photo columns), so a pixel costs two taps per map.
        let rowsY = cues.offsetY.values.withUnsafeBufferPointer { sampler.horizontalPass($0.nonEmptyBase, cellHeight: cues.cellHeight) }
        let rowsX = cues.offsetX.values.withUnsafeBufferPointer { sampler.horizontalPass($0.nonEmptyBase, cellHeight: cues.cellHeight) }
        rowsY.withUnsafeBufferPointer { rowsY in
            rowsX.withUnsafeBufferPointer { rowsX in
                modelX.withUnsafeBufferPointer { modelX in
                    peakY.withUnsafeBufferPointer { peakY in
                        peakX.withUnsafeBufferPointer { peakX in
                            nonisolated(unsafe) let rowsY = rowsY.nonEmptyBase, rowsX = rowsX.nonEmptyBase, modelX = modelX.nonEmptyBase
                            nonisolated(unsafe) let peakY = peakY.nonEmptyBase, peakX = peakX.nonEmptyBase
                            Parallel.forEach(count: bandCount, threads: threads) { range in
                                let tally = Tally(pieceCount + 1)
                                defer { tallies.withLock { $0.append(tally) } }
                                for b in range {
                                    Self.vote(rows: b * bandRows ..< min(H, (b + 1) * bandRows), labels: labels, band: bands[b], tally: tally,
                                              componentOfLabel: componentOfLabel, peaks: n, peakY: peakY, peakX: peakX, modelX: modelX,
                                              modelY: { y in (Double(y) + 0.5) * Double(cues.modelHeight) / Double(H) - 0.5 },
                                              sampler: sampler, rowsY: rowsY, rowsX: rowsX, joinDistance: joinDistance)
                                }
                            }
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

    /// One band's runs of pieces, in raster order, with each row's run count.
    private final class Band: @unchecked Sendable {
        var start: [Int32] = [], end: [Int32] = [], piece: [Int32] = [], rowCounts: [Int] = []
    }

    /// One part's per-piece counts (`InstancePieces`' `area`, `near`, `nearMax`, `farMin`).
    private final class Tally: @unchecked Sendable {
        var area: [Int], near: [Int], nearMax: [Double], farMin: [Double]
        init(_ count: Int) {
            area = [Int](repeating: 0, count: count)
            near = area
            nearMax = [Double](repeating: -.infinity, count: count)
            farMin = [Double](repeating: .infinity, count: count)
        }
    }

    /// Votes the pixels of `rows` into `band` and `tally`. A pixel's counts go to the run it ends in:
    /// the pixels of one run vote alike, so they are added once per run, not per pixel.
    private static func vote(rows: Range<Int>, labels: RunLabels, band: Band, tally: Tally, componentOfLabel: [Int32], peaks n: Int,
                             peakY: UnsafePointer<Double>, peakX: UnsafePointer<Double>, modelX: UnsafePointer<Double>,
                             modelY: (Int) -> Double, sampler: CellSampler, rowsY: UnsafePointer<Float>, rowsX: UnsafePointer<Float>,
                             joinDistance: Double) {
        tally.area.withUnsafeMutableBufferPointer { area in
        tally.near.withUnsafeMutableBufferPointer { near in
        tally.nearMax.withUnsafeMutableBufferPointer { nearMax in
        tally.farMin.withUnsafeMutableBufferPointer { farMin in
            let area = area.nonEmptyBase, near = near.nonEmptyBase, nearMax = nearMax.nonEmptyBase, farMin = farMin.nonEmptyBase
            for y in rows {
                let before = band.start.count
                let vy = modelY(y), taps = sampler.taps(row: y)
                labels.forEachLabelledRun(inRow: y) { columns, label in
                    let base = Int(componentOfLabel[Int(label)]) &* n
                    // The current run of one piece: its first column, and its pixels' counts so far.
                    var current = -1, runStart = columns.lowerBound
                    var runNear = 0, runNearMax = -Double.infinity, runFarMin = Double.infinity
                    func flush(upTo end: Int) {
                        guard current >= 0 else { return }
                        area[current] &+= end &- runStart
                        near[current] &+= runNear
                        nearMax[current] = max(nearMax[current], runNearMax)
                        farMin[current] = min(farMin[current], runFarMin)
                        band.start.append(Int32(runStart))
                        band.end.append(Int32(end))
                        band.piece.append(Int32(current))
                    }
                    for x in columns {
                        let ty = vy + Double(sampler.value(rows: rowsY, taps: taps, x: x))
                        let tx = modelX[x] + Double(sampler.value(rows: rowsX, taps: taps, x: x))
                        var best = 0, bestD2 = Double.infinity
                        for k in 0 ..< n {
                            let dy = ty - peakY[k], dx = tx - peakX[k]
                            let d2 = dy * dy + dx * dx
                            if d2 < bestD2 { (best, bestD2) = (k, d2) }
                        }
                        let p = base &+ best &+ 1, miss = bestD2.squareRoot()
                        if p != current {
                            flush(upTo: x)
                            (current, runStart, runNear, runNearMax, runFarMin) = (p, x, 0, -.infinity, .infinity)
                        }
                        if miss < joinDistance {
                            runNear &+= 1
                            runNearMax = max(runNearMax, miss)
                        } else {
                            runFarMin = min(runFarMin, miss)
                        }
                    }
                    flush(upTo: columns.upperBound)
                }
                band.rowCounts.append(band.start.count - before)
            }
        }
        }
        }
        }
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
