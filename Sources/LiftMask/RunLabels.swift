import LiftImage
import LiftTensor

/// An instance label image kept as the mask's runs, each with a label: the same labels as a
/// `LabelMap` for 12 bytes per run instead of 4 bytes per pixel (a 12 MP photo's subject has a few
/// thousand runs). Rows are rendered on demand; `labelMap` makes the whole image.
///
/// Runs are the hard mask's horizontal stretches of foreground, in raster order, never overlapping;
/// a run of the mask may be cut into several runs where instances meet inside it (instances from
/// the model's cues, `InstanceGrouping`). Label 0 marks runs that are no instance (dropped specks).
package struct RunLabels: Sendable {
    /// Size in pixels.
    package let width: Int, height: Int
    /// Number of instances; labels run from 1 to `count`.
    package let count: Int
    /// First column of each run, runs in raster order.
    let runStart: [Int32]
    /// One past the last column of each run.
    let runEnd: [Int32]
    /// Runs of row `y` are `rowOffsets[y] ..< rowOffsets[y + 1]`.
    let rowOffsets: [Int]
    /// Label of each run (0: not an instance).
    let runLabel: [Int32]

    /// Labels the components of `runs`: component `c` gets `labelOf[c]` (0 leaves it out).
    init(runs: RunComponents, labelOf: [Int32], count: Int) {
        precondition(labelOf.count == runs.componentCount, "one label per component")
        self.init(width: runs.width, height: runs.height, count: count, runStart: runs.runStart, runEnd: runs.runEnd,
                  rowOffsets: runs.rowOffsets, runLabel: runs.component.map { labelOf[Int($0)] })
    }

    /// Runs given as they are: `rowOffsets` has `height + 1` entries, each row's runs are sorted and
    /// disjoint, labels are 0…`count`.
    init(width: Int, height: Int, count: Int, runStart: [Int32], runEnd: [Int32], rowOffsets: [Int], runLabel: [Int32]) {
        precondition(rowOffsets.count == height + 1 && runStart.count == runEnd.count && runStart.count == runLabel.count,
                     "one start, end and label per run, one offset per row and one more")
        self.width = width
        self.height = height
        self.count = count
        self.runStart = runStart
        self.runEnd = runEnd
        self.rowOffsets = rowOffsets
        self.runLabel = runLabel
    }

    /// The same runs with every label `l` replaced by `relabel[l]` (`relabel[0]` must be 0), `count` labels.
    package func relabelled(_ relabel: [Int32], count: Int) -> RunLabels {
        precondition(relabel.first == 0 && relabel.count == self.count + 1, "one new label per label, and 0 for 0")
        return RunLabels(width: width, height: height, count: count, runStart: runStart, runEnd: runEnd,
                         rowOffsets: rowOffsets, runLabel: runLabel.map { relabel[Int($0)] })
    }

    /// Writes row `y`'s labels (`width` values, 0: background) to `out`.
    @inline(__always)
    package func render(row y: Int, into out: UnsafeMutablePointer<Int32>) {
        var x = 0
        for r in rowOffsets[y] ..< rowOffsets[y + 1] {
            let s = Int(runStart[r]), e = Int(runEnd[r])
            (out + x).update(repeating: 0, count: s - x)
            (out + s).update(repeating: runLabel[r], count: e - s)
            x = e
        }
        (out + x).update(repeating: 0, count: width - x)
    }

    /// Calls `body(r, label)` for each run of row `y` with a non-zero label, `r` its columns.
    @inline(__always)
    func forEachLabelledRun(inRow y: Int, _ body: (Range<Int>, Int32) -> Void) {
        for r in rowOffsets[y] ..< rowOffsets[y + 1] {
            let label = runLabel[r]
            if label != 0 { body(Int(runStart[r]) ..< Int(runEnd[r]), label) }
        }
    }

    /// The label at column `x`, row `y` (0 outside the image or on background).
    package func label(x: Int, y: Int) -> Int32 {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        // Runs of a row are sorted by column: the last one starting at or before x.
        var low = rowOffsets[y], high = rowOffsets[y + 1]
        while low < high {
            let middle = (low + high) / 2
            if Int(runStart[middle]) <= x { low = middle + 1 } else { high = middle }
        }
        let r = low - 1
        guard r >= rowOffsets[y], x < Int(runEnd[r]) else { return 0 }
        return runLabel[r]
    }

    /// The whole label image.
    package func labelMap(threads: Int = Parallel.defaultThreads) -> LabelMap {
        let width = width, height = height
        let labels = [Int32](unsafeUninitializedCapacity: width * height) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            Parallel.forEach(count: height, threads: threads, minimumPerPart: 32) { rows in
                for y in rows { render(row: y, into: buffer.nonEmptyBase + y &* width) }
            }
            initialized = width * height
        }
        return LabelMap(width: width, height: height, labels: labels, count: count)
    }
}
