import LiftImage
import LiftTensor

/// Which instance each soft-alpha pixel belongs to.
///
/// A refined alpha reaches past the hard mask (hair, soft edges), so a pixel outside every instance
/// can still belong to one: the nearest instance within a short reach (about the refinement radius).
/// Pixels with a label own themselves; for the others the nearest instance is found on a grid of
/// s×s blocks (s as the guided filter's, so the grid's longer side is at most 1024): each block takes
/// the largest label inside it, then two chamfer passes (edge step 3, diagonal step 4) carry labels to
/// blocks within `reach / s` blocks. Unlabelled foreground (a speck under the minimum area) within
/// reach of an instance belongs to it too, as hair strands the threshold cut off should.
/// Cost: one read of the label map plus O(pixels / s²).
public struct OwnershipMap: Sendable {
    /// Photo width and height.
    public let width: Int, height: Int
    /// Block side s.
    public let block: Int
    /// Grid size, ⌈width/s⌉ × ⌈height/s⌉.
    let gridWidth: Int, gridHeight: Int
    /// Nearest label within reach for each block (0: none), row-major.
    let grid: [Int32]

    /// Finds the owners for `labels` within `reach` photo pixels (clamped to the photo's width + height).
    public init(labels: LabelMap, reach: Int, threads: Int = Parallel.defaultThreads) {
        self.init(labels: LabelRows(labels), reach: reach, threads: threads)
    }

    /// `init(labels:reach:threads:)` for labels kept as runs.
    package init(labels: RunLabels, reach: Int, threads: Int = Parallel.defaultThreads) {
        self.init(labels: LabelRows(labels), reach: reach, threads: threads)
    }

    private init(labels: LabelRows, reach: Int, threads: Int) {
        width = labels.width
        height = labels.height
        let s = GuidedFilter.defaultSubsampling(width: width, height: height)
        block = s
        let gw = (width + s - 1) / s, gh = (height + s - 1) / s
        gridWidth = gw
        gridHeight = gh
        var grid = [Int32](repeating: 0, count: gw * gh)
        guard labels.count > 0 else {
            self.grid = grid
            return
        }
        let width = width, height = height
        let reach = min(max(reach, 0), width + height)
        grid.withUnsafeMutableBufferPointer { grid in
            nonisolated(unsafe) let grid = grid
            Parallel.forEach(count: gh, threads: threads, minimumPerPart: 8) { rows in
                for gy in rows {
                    labels.addBlockMaxima(rows: gy * s ..< min(gy * s + s, height), block: s, into: grid.nonEmptyBase + gy &* gw)
                }
            }
            Self.chamfer(grid.nonEmptyBase, width: gw, height: gh, limit: Int32(3 * max(1, (reach + s - 1) / s)))
        }
        self.grid = grid
    }

    /// Two chamfer passes over the grid; cells farther than `limit` from any label end at 0.
    private static func chamfer(_ owner: UnsafeMutablePointer<Int32>, width: Int, height: Int, limit: Int32) {
        let count = width * height
        let distance = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        defer { distance.deallocate() }
        for i in 0 ..< count { distance[i] = owner[i] != 0 ? 0 : limit &+ 1 }
        @inline(__always) func relax(_ i: Int, _ j: Int, _ step: Int32) {
            let candidate = distance[j] &+ step
            if candidate < distance[i] {
                distance[i] = candidate
                owner[i] = owner[j]
            }
        }
        for y in 0 ..< height {
            for x in 0 ..< width {
                let i = y &* width &+ x
                if distance[i] == 0 { continue }
                if x > 0 { relax(i, i &- 1, 3) }
                if y > 0 {
                    if x > 0 { relax(i, i &- width &- 1, 4) }
                    relax(i, i &- width, 3)
                    if x &+ 1 < width { relax(i, i &- width &+ 1, 4) }
                }
            }
        }
        for y in stride(from: height - 1, through: 0, by: -1) {
            for x in stride(from: width - 1, through: 0, by: -1) {
                let i = y &* width &+ x
                if distance[i] == 0 { continue }
                if x &+ 1 < width { relax(i, i &+ 1, 3) }
                if y &+ 1 < height {
                    if x &+ 1 < width { relax(i, i &+ width &+ 1, 4) }
                    relax(i, i &+ width, 3)
                    if x > 0 { relax(i, i &+ width &- 1, 4) }
                }
            }
        }
        for i in 0 ..< count where distance[i] > limit { owner[i] = 0 }
    }

    /// The soft alpha kept for the instances: 0 where no instance owns the pixel, 1 inside the hard
    /// mask where `soft` fell below `threshold` (a filled hole), else `soft` with its levels
    /// stretched so values within `snap` of 0 or 1 become exactly 0 or 1:
    /// `clamp((soft - snap) / (1 - 2 snap), 0, 1)`.
    public func ownedAlpha(_ soft: consuming FloatMap, labels: LabelMap, threshold: Float, snap: Float = 0,
                           threads: Int = Parallel.defaultThreads) -> FloatMap {
        ownedAlpha(soft, labels: LabelRows(labels), threshold: threshold, snap: snap, threads: threads)
    }

    /// `ownedAlpha(_:labels:threshold:snap:threads:)` for labels kept as runs.
    package func ownedAlpha(_ soft: consuming FloatMap, labels: RunLabels, threshold: Float, snap: Float = 0,
                            threads: Int = Parallel.defaultThreads) -> FloatMap {
        ownedAlpha(soft, labels: LabelRows(labels), threshold: threshold, snap: snap, threads: threads)
    }

    private func ownedAlpha(_ soft: consuming FloatMap, labels: LabelRows, threshold: Float, snap: Float,
                            threads: Int) -> FloatMap {
        precondition(snap >= 0 && snap < 0.5, "snap must be in 0..<0.5")
        precondition(soft.width == width && soft.height == height && labels.width == width, "sizes must match")
        let gain = 1 / (1 - 2 * snap)
        // Rewritten in place: the caller's soft map is consumed, so no second 4-byte-per-pixel buffer.
        var output = soft.values
        soft = FloatMap(width: 0, height: 0)
        forEachRow(labels: labels, output: &output, threads: threads) { row, labels, owners, out in
            for x in 0 ..< width {
                out[x] = Self.ownedValue(soft: out[x], label: labels[x], owner: owners[x / block], threshold: threshold,
                                         snap: snap, gain: gain)
            }
        }
        return FloatMap(width: width, height: height, values: output)
    }

    /// One pixel of `ownedAlpha`: 0 when neither labelled nor owned, 1 for a labelled pixel under the
    /// threshold (a filled hole), else `stretched(soft)`.
    @inline(__always)
    static func ownedValue(soft s: Float, label: Int32, owner: Int32, threshold: Float, snap: Float, gain: Float) -> Float {
        owner == 0 && label == 0 ? 0 : (label != 0 && s < threshold ? 1 : stretched(s, snap: snap, gain: gain))
    }

    /// `clamp((s - snap) · gain, 0, 1)`; NaN (a broken map) compares false and becomes 0.
    @inline(__always)
    static func stretched(_ s: Float, snap: Float, gain: Float) -> Float {
        let stretched = (s - snap) * gain
        return stretched > 0 ? min(stretched, 1) : 0
    }

    /// Calls `body` with the owners of the blocks of photo row `y` (one per block column).
    func withOwners<R>(ofRow y: Int, _ body: (UnsafePointer<Int32>) -> R) -> R {
        grid.withUnsafeBufferPointer { body($0.nonEmptyBase + (y / block) &* gridWidth) }
    }

    /// `alpha` where the pixel's owner is in `keeping`, else 0.
    public func alpha(_ alpha: FloatMap, labels: LabelMap, keeping: Set<Int32>, threads: Int = Parallel.defaultThreads) -> FloatMap {
        self.alpha(alpha, labels: LabelRows(labels), keeping: keeping, threads: threads)
    }

    /// `alpha(_:labels:keeping:threads:)` for labels kept as runs.
    package func alpha(_ alpha: FloatMap, labels: RunLabels, keeping: Set<Int32>, threads: Int = Parallel.defaultThreads) -> FloatMap {
        self.alpha(alpha, labels: LabelRows(labels), keeping: keeping, threads: threads)
    }

    private func alpha(_ alpha: FloatMap, labels: LabelRows, keeping: Set<Int32>, threads: Int) -> FloatMap {
        precondition(alpha.width == width && alpha.height == height && labels.width == width, "sizes must match")
        var table = [Bool](repeating: false, count: labels.count + 1)
        for label in keeping where label > 0 && Int(label) <= labels.count { table[Int(label)] = true }
        var output = [Float](repeating: 0, count: width * height)
        forEachRow(labels: labels, output: &output, threads: threads) { row, labels, owners, out in
            table.withUnsafeBufferPointer { table in
                alpha.values.withUnsafeBufferPointer { alpha in
                    let alpha = alpha.nonEmptyBase + row
                    for x in 0 ..< width {
                        let label = labels[x]
                        out[x] = table[Int(label != 0 ? label : owners[x / block])] ? alpha[x] : 0
                    }
                }
            }
        }
        return FloatMap(width: width, height: height, values: output)
    }

    /// Calls `body(rowStart, labelRow, gridRow, outputRow)` for every photo row, in parallel.
    private func forEachRow(labels: LabelRows, output: inout [Float], threads: Int,
                            _ body: (Int, UnsafePointer<Int32>, UnsafePointer<Int32>, UnsafeMutablePointer<Float>) -> Void) {
        let width = width, block = block, gridWidth = gridWidth
        labels.withRowReader { read in
            grid.withUnsafeBufferPointer { grid in
                output.withUnsafeMutableBufferPointer { out in
                    nonisolated(unsafe) let out = out
                    Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { rows in
                        let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: width)
                        defer { scratch.deallocate() }
                        for y in rows {
                            let row = y &* width
                            body(row, read(y, scratch), grid.nonEmptyBase + (y / block) &* gridWidth, out.nonEmptyBase + row)
                        }
                    }
                }
            }
        }
    }
}
