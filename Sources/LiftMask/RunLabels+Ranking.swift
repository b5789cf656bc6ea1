extension RunLabels {
    /// Runs whose labels are any ids `0 ..< idCount` (0: no instance) renumbered as Lift numbers
    /// instances: 1… by decreasing area, ties by the first pixel in raster order (`group.py`'s
    /// `ordered`); ids without pixels disappear and neighbouring runs of one label in a row are joined.
    /// - Precondition: each row's runs are sorted and disjoint; `runLabel` values are `0 ..< idCount`.
    static func ranked(width: Int, height: Int, idCount: Int, runStart: [Int32], runEnd: [Int32], rowOffsets: [Int],
                       runLabel ids: [Int32]) -> RunLabels {
        var area = [Int](repeating: 0, count: idCount), first = [Int](repeating: .max, count: idCount)
        for y in 0 ..< height {
            for r in rowOffsets[y] ..< rowOffsets[y + 1] {
                let g = Int(ids[r])
                area[g] += Int(runEnd[r] - runStart[r])
                first[g] = min(first[g], y * width + Int(runStart[r]))
            }
        }
        let present = (1 ..< max(idCount, 1)).filter { area[$0] > 0 }
            .sorted { area[$0] != area[$1] ? area[$0] > area[$1] : first[$0] < first[$1] }
        var rank = [Int32](repeating: 0, count: idCount)
        for (i, g) in present.enumerated() { rank[g] = Int32(i + 1) }
        var start: [Int32] = [], end: [Int32] = [], label: [Int32] = []
        var offsets = [Int](repeating: 0, count: height + 1)
        start.reserveCapacity(runStart.count)
        end.reserveCapacity(runStart.count)
        label.reserveCapacity(runStart.count)
        for y in 0 ..< height {
            let rowStart = start.count
            for r in rowOffsets[y] ..< rowOffsets[y + 1] {
                let l = rank[Int(ids[r])]
                if start.count > rowStart, end[end.count - 1] == runStart[r], label[label.count - 1] == l {
                    end[end.count - 1] = runEnd[r]
                } else {
                    start.append(runStart[r])
                    end.append(runEnd[r])
                    label.append(l)
                }
            }
            offsets[y + 1] = start.count
        }
        return RunLabels(width: width, height: height, count: present.count, runStart: start, runEnd: end,
                         rowOffsets: offsets, runLabel: label)
    }
}
