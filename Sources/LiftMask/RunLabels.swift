import LiftImage
import LiftTensor

/// An instance label image kept as the mask's runs, each with a label: the same labels as a
/// `LabelMap` for 12 bytes per run instead of 4 bytes per pixel (a 12 MP photo's subject has a few
/// thousand runs). Rows are rendered on demand; `labelMap` makes the whole image.
package struct RunLabels: Sendable {
    /// Size in pixels.
    package let width: Int, height: Int
    /// Number of instances; labels run from 1 to `count`.
    package let count: Int
    /// The foreground runs and their components.
    private let runs: RunComponents
    /// Label of each component (0: not an instance).
    private let labelOf: [Int32]

    /// Labels the components of `runs`: component `c` gets `labelOf[c]` (0 leaves it out).
    init(runs: RunComponents, labelOf: [Int32], count: Int) {
        precondition(labelOf.count == runs.componentCount, "one label per component")
        width = runs.width
        height = runs.height
        self.count = count
        self.runs = runs
        self.labelOf = labelOf
    }

    /// The same runs with every label `l` replaced by `relabel[l]` (`relabel[0]` must be 0), `count` labels.
    package func relabelled(_ relabel: [Int32], count: Int) -> RunLabels {
        precondition(relabel.first == 0 && relabel.count == self.count + 1, "one new label per label, and 0 for 0")
        return RunLabels(runs: runs, labelOf: labelOf.map { relabel[Int($0)] }, count: count)
    }

    /// Writes row `y`'s labels (`width` values, 0: background) to `out`.
    @inline(__always)
    package func render(row y: Int, into out: UnsafeMutablePointer<Int32>) {
        var x = 0
        for r in runs.rowOffsets[y] ..< runs.rowOffsets[y + 1] {
            let s = Int(runs.runStart[r]), e = Int(runs.runEnd[r])
            (out + x).update(repeating: 0, count: s - x)
            (out + s).update(repeating: labelOf[Int(runs.component[r])], count: e - s)
            x = e
        }
        (out + x).update(repeating: 0, count: width - x)
    }

    /// Calls `body(r, label)` for each run of row `y` with a non-zero label, `r` its columns.
    @inline(__always)
    func forEachLabelledRun(inRow y: Int, _ body: (Range<Int>, Int32) -> Void) {
        for r in runs.rowOffsets[y] ..< runs.rowOffsets[y + 1] {
            let label = labelOf[Int(runs.component[r])]
            if label != 0 { body(Int(runs.runStart[r]) ..< Int(runs.runEnd[r]), label) }
        }
    }

    /// The label at column `x`, row `y` (0 outside the image or on background).
    package func label(x: Int, y: Int) -> Int32 {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        // Runs of a row are sorted by column: the last one starting at or before x.
        var low = runs.rowOffsets[y], high = runs.rowOffsets[y + 1]
        while low < high {
            let middle = (low + high) / 2
            if Int(runs.runStart[middle]) <= x { low = middle + 1 } else { high = middle }
        }
        let r = low - 1
        guard r >= runs.rowOffsets[y], x < Int(runs.runEnd[r]) else { return 0 }
        return labelOf[Int(runs.component[r])]
    }

    /// The whole label image.
    package func labelMap(threads: Int = Parallel.defaultThreads) -> LabelMap {
        LabelMap(width: width, height: height, labels: runs.labelImage(labelOf: labelOf, threads: threads), count: count)
    }
}
