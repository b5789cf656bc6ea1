import LiftImage

/// Instance labels read row by row: a label image, or runs rendered on demand.
struct LabelRows: @unchecked Sendable {
    // @unchecked: both kinds are immutable values.
    private enum Kind {
        case map(LabelMap)
        case runs(RunLabels)
    }
    private let kind: Kind
    let width: Int, height: Int, count: Int

    init(_ labels: LabelMap) {
        kind = .map(labels)
        (width, height, count) = (labels.width, labels.height, labels.count)
    }

    init(_ labels: RunLabels) {
        kind = .runs(labels)
        (width, height, count) = (labels.width, labels.height, labels.count)
    }

    /// The label at column `x`, row `y` (0 outside the image).
    func label(x: Int, y: Int) -> Int32 {
        switch kind {
        case let .map(labels): labels.label(x: x, y: y)
        case let .runs(labels): labels.label(x: x, y: y)
        }
    }

    /// Raises each cell of the grid row `cells` to the largest label among `rows` in its `block` columns.
    func addBlockMaxima(rows: Range<Int>, block: Int, into cells: UnsafeMutablePointer<Int32>) {
        switch kind {
        case let .map(labels):
            labels.labels.withUnsafeBufferPointer { source in
                let gridWidth = (width + block - 1) / block
                for y in rows {
                    let row = source.nonEmptyBase + y &* width
                    for gx in 0 ..< gridWidth {
                        var best = cells[gx]
                        for x in gx &* block ..< min(gx &* block &+ block, width) { best = max(best, row[x]) }
                        cells[gx] = best
                    }
                }
            }
        case let .runs(labels):
            for y in rows {
                labels.forEachLabelledRun(inRow: y) { columns, label in
                    for gx in columns.lowerBound / block ... (columns.upperBound - 1) / block { cells[gx] = max(cells[gx], label) }
                }
            }
        }
    }

    /// Calls `body` with a row reader: `read(y, scratch)` returns row `y`'s `width` labels, made in
    /// `scratch` (`width` values per thread) or pointing into the label image.
    func withRowReader<R>(_ body: ((Int, UnsafeMutablePointer<Int32>) -> UnsafePointer<Int32>) -> R) -> R {
        switch kind {
        case let .map(labels):
            return labels.labels.withUnsafeBufferPointer { source in
                let base = source.baseAddress, width = width
                return body { y, _ in
                    guard let base else { preconditionFailure("a label map with rows has labels") }
                    return base + y &* width
                }
            }
        case let .runs(labels):
            return body { y, scratch in
                labels.render(row: y, into: scratch)
                return UnsafePointer(scratch)
            }
        }
    }
}
