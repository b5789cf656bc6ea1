import LiftImage
import LiftTensor

extension RunLabels {
    /// Per-label statistics (`result[l - 1]` for label `l`): area, bounding box, centroid (mean of
    /// pixel centres) and `score`, the mean of `score` over the label's pixels (1 when nil). Rows
    /// of `score` holding no labelled run are never read.
    func statistics(score: MapRows?, threads: Int) -> [Instance] {
        let n = count
        var area = [Int](repeating: 0, count: n + 1)
        var minX = [Int](repeating: .max, count: n + 1), maxX = [Int](repeating: .min, count: n + 1)
        var minY = [Int](repeating: .max, count: n + 1), maxY = [Int](repeating: .min, count: n + 1)
        var sumX = [Double](repeating: 0, count: n + 1), sumY = [Double](repeating: 0, count: n + 1)
        var sumScore = [Double](repeating: 0, count: n + 1)
        let runScores = score.map { runSums(of: $0, threads: threads) }
        for y in 0 ..< height {
            for r in rowOffsets[y] ..< rowOffsets[y + 1] where runLabel[r] != 0 {
                let l = Int(runLabel[r]), s = Int(runStart[r]), e = Int(runEnd[r]), length = e - s
                area[l] += length
                minX[l] = min(minX[l], s)
                maxX[l] = max(maxX[l], e - 1)
                minY[l] = min(minY[l], y)
                maxY[l] = y
                sumX[l] += Double((s + e - 1) * length) / 2
                sumY[l] += Double(y * length)
                if let runScores { sumScore[l] += runScores[r] }
            }
        }
        return (1 ... max(n, 1)).prefix(n).map { l in
            let a = Double(area[l])
            return Instance(label: Int32(l), area: area[l],
                            boundingBox: PixelBox(x: minX[l], y: minY[l], width: maxX[l] - minX[l] + 1, height: maxY[l] - minY[l] + 1),
                            centroid: PixelPoint(x: sumX[l] / a + 0.5, y: sumY[l] / a + 0.5),
                            score: score == nil ? 1 : Float(sumScore[l] / a))
        }
    }

    /// The sum of `map` over each labelled run (0 for the others).
    private func runSums(of map: MapRows, threads: Int) -> [Double] {
        precondition(map.width == width && map.height == height, "score map must match the mask size")
        return map.runSums(runStart: runStart, runEnd: runEnd, rowOffsets: rowOffsets, labels: runLabel, threads: threads)
    }
}
