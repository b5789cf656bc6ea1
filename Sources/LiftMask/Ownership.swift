import LiftImage
import LiftTensor

/// Which instance each soft-alpha pixel belongs to.
///
/// A refined alpha reaches past the hard mask (hair, soft edges), so a pixel outside every instance
/// can still belong to one: the nearest instance within a short reach (the refinement radius).
public enum Ownership {
    /// For each pixel: its label when it has one, else the label of the nearest labelled pixel within
    /// `reach` pixels (chamfer 3-4 distance, ties to the first found), else 0.
    ///
    /// Two chamfer passes (forward, backward) over row bands with `reach` rows of context on each
    /// side; the band height depends only on `reach`, so results do not depend on the thread count.
    public static func nearestLabels(_ labels: LabelMap, within reach: Int, threads: Int = Parallel.defaultThreads) -> LabelMap {
        let width = labels.width, height = labels.height
        guard labels.count > 0, reach > 0 else { return labels }
        let limit = Int32(3 * reach)
        let bandRows = max(128, 4 * reach)
        let bandCount = (height + bandRows - 1) / bandRows
        var owners = [Int32](repeating: 0, count: width * height)
        labels.labels.withUnsafeBufferPointer { source in
            owners.withUnsafeMutableBufferPointer { output in
                nonisolated(unsafe) let output = output
                Parallel.forEach(count: bandCount, threads: threads) { bands in
                    let windowCapacity = (bandRows + 2 * reach) * width
                    let distance = UnsafeMutablePointer<Int32>.allocate(capacity: windowCapacity)
                    let owner = UnsafeMutablePointer<Int32>.allocate(capacity: windowCapacity)
                    defer { distance.deallocate(); owner.deallocate() }
                    for band in bands {
                        let rows = band * bandRows ..< min((band + 1) * bandRows, height)
                        let window = max(0, rows.lowerBound - reach) ..< min(height, rows.upperBound + reach)
                        let count = window.count * width
                        let src = source.baseAddress! + window.lowerBound * width
                        for i in 0 ..< count {
                            let label = src[i]
                            owner[i] = label
                            distance[i] = label != 0 ? 0 : limit &+ 1
                        }
                        chamfer(distance: distance, owner: owner, width: width, rows: window.count)
                        let out = output.baseAddress! + rows.lowerBound * width
                        let offset = (rows.lowerBound - window.lowerBound) * width
                        for i in 0 ..< rows.count * width {
                            out[i] = distance[offset + i] <= limit ? owner[offset + i] : 0
                        }
                    }
                }
            }
        }
        return LabelMap(width: width, height: height, labels: owners, count: labels.count)
    }

    /// The forward and backward chamfer passes (edge step 3, diagonal step 4) on one window.
    private static func chamfer(distance: UnsafeMutablePointer<Int32>, owner: UnsafeMutablePointer<Int32>, width: Int, rows: Int) {
        @inline(__always) func relax(_ i: Int, _ j: Int, _ step: Int32) {
            let candidate = distance[j] &+ step
            if candidate < distance[i] {
                distance[i] = candidate
                owner[i] = owner[j]
            }
        }
        for y in 0 ..< rows {
            let row = y &* width
            for x in 0 ..< width {
                let i = row &+ x
                if distance[i] == 0 { continue }
                if x > 0 { relax(i, i &- 1, 3) }
                if y > 0 {
                    let up = i &- width
                    if x > 0 { relax(i, up &- 1, 4) }
                    relax(i, up, 3)
                    if x &+ 1 < width { relax(i, up &+ 1, 4) }
                }
            }
        }
        for y in stride(from: rows - 1, through: 0, by: -1) {
            let row = y &* width
            for x in stride(from: width - 1, through: 0, by: -1) {
                let i = row &+ x
                if distance[i] == 0 { continue }
                if x &+ 1 < width { relax(i, i &+ 1, 3) }
                if y &+ 1 < rows {
                    let down = i &+ width
                    if x &+ 1 < width { relax(i, down &+ 1, 4) }
                    relax(i, down, 3)
                    if x > 0 { relax(i, down &- 1, 4) }
                }
            }
        }
    }

    /// The soft alpha kept for the instances: 0 where no instance owns the pixel, 1 inside the hard
    /// mask where `soft` fell below `threshold` (a filled hole), else `soft` with its levels
    /// stretched so values within `snap` of 0 or 1 become exactly 0 or 1:
    /// `clamp((soft - snap) / (1 - 2 snap), 0, 1)`.
    public static func ownedAlpha(_ soft: FloatMap, owners: LabelMap, labels: LabelMap, threshold: Float, snap: Float = 0,
                                  threads: Int = Parallel.defaultThreads) -> FloatMap {
        precondition(snap >= 0 && snap < 0.5, "snap must be in 0..<0.5")
        let gain = 1 / (1 - 2 * snap)
        var values = [Float](repeating: 0, count: soft.values.count)
        soft.values.withUnsafeBufferPointer { soft in
            owners.labels.withUnsafeBufferPointer { owners in
                labels.labels.withUnsafeBufferPointer { labels in
                    values.withUnsafeMutableBufferPointer { out in
                        nonisolated(unsafe) let out = out
                        Parallel.forEach(count: out.count, threads: threads, minimumPerPart: 1 << 16) { range in
                            for i in range {
                                let s = soft[i]
                                out[i] = owners[i] == 0 ? 0 : (labels[i] != 0 && s < threshold ? 1 : min(max((s - snap) * gain, 0), 1))
                            }
                        }
                    }
                }
            }
        }
        return FloatMap(width: soft.width, height: soft.height, values: values)
    }

    /// `alpha` where the pixel's owner is in `keeping`, else 0.
    public static func alpha(_ alpha: FloatMap, owners: LabelMap, keeping: Set<Int32>,
                             threads: Int = Parallel.defaultThreads) -> FloatMap {
        var table = [Bool](repeating: false, count: owners.count + 1)
        for label in keeping where label > 0 && Int(label) <= owners.count { table[Int(label)] = true }
        var values = [Float](repeating: 0, count: alpha.values.count)
        alpha.values.withUnsafeBufferPointer { alpha in
            owners.labels.withUnsafeBufferPointer { owners in
                table.withUnsafeBufferPointer { table in
                    values.withUnsafeMutableBufferPointer { out in
                        nonisolated(unsafe) let out = out
                        Parallel.forEach(count: out.count, threads: threads, minimumPerPart: 1 << 16) { range in
                            for i in range where table[Int(owners[i])] { out[i] = alpha[i] }
                        }
                    }
                }
            }
        }
        return FloatMap(width: alpha.width, height: alpha.height, values: values)
    }
}
