import LiftImage

/// Instance centres on a centre heatmap: cells that are the largest of their `window × window`
/// neighbourhood (cells outside the grid count as 0) and at least `threshold`, best first (ties in
/// raster order), at most `limit` (Panoptic-DeepLab's keypoint-style NMS by max pooling; the same
/// as `peaks` in `Tools/instances/group.py`).
enum CentrePeaks {
    /// One peak: its cell and score.
    struct Peak: Equatable {
        var row: Int, column: Int, score: Float
    }

    /// The peaks of `centre` (probabilities per cell).
    static func find(_ centre: FloatMap, threshold: Float, window: Int, limit: Int) -> [Peak] {
        precondition(window >= 1 && limit >= 0, "a window of at least one cell")
        let w = centre.width, h = centre.height
        let before = window / 2, after = window - 1 - window / 2  // OpenCV's anchor: the window's centre
        var peaks: [Peak] = []
        centre.values.withUnsafeBufferPointer { values in
            for y in 0 ..< h {
                for x in 0 ..< w {
                    let v = values[y * w + x]
                    guard v >= threshold else { continue }
                    // The pooled maximum includes the border's zeros where the window leaves the grid.
                    var pooled: Float = (y - before < 0 || y + after >= h || x - before < 0 || x + after >= w) ? 0 : -.infinity
                    for yy in max(0, y - before) ... min(h - 1, y + after) {
                        for xx in max(0, x - before) ... min(w - 1, x + after) { pooled = max(pooled, values[yy * w + xx]) }
                    }
                    if v >= pooled { peaks.append(Peak(row: y, column: x, score: v)) }
                }
            }
        }
        // Raster order already: a stable sort by score keeps it for ties.
        let sorted = peaks.enumerated().sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }
        return sorted.prefix(limit).map(\.element)
    }
}
