import LiftImage

/// Bilinear reading of a cell map at photo pixels, with OpenCV's arithmetic for a Float32
/// `cv2.resize(map, (width, height), interpolation=INTER_LINEAR)` (its own code path, not Intel
/// IPP's): half-pixel centres, Float32 weights, each source row interpolated along x first, then
/// the two rows along y; columns past the last cell take the last cell, rows are clamped. So the
/// Swift grouping reads the same offsets and boundary values as `Tools/instances/group.py` (with
/// `cv2.ipp.setUseIPP(False)`; IPP's results differ in the last digits). One case differs: OpenCV
/// resizes to exactly half the grid in both directions by area averaging, never the case for a
/// photo larger than the model's cell grid.
///
/// Only the per-column and per-row taps are stored (O(width + height)); values are computed for the
/// pixels asked for (or from the horizontal pass of the few cell rows, `horizontalPass`), so no
/// photo-sized map is made.
struct CellSampler {
    /// Per photo column: the left cell, its weight and the right cell's weight (right = left + 1
    /// when `twoColumns`).
    private let column: [Int32], columnWeights: [SIMD2<Float>], twoColumns: [Bool]
    /// Per photo row: the two cell rows (clamped) and their weights.
    private let rows: [SIMD2<Int32>], rowWeights: [SIMD2<Float>]
    /// Cells per row.
    let cellWidth: Int

    /// Taps from a `cellWidth × cellHeight` grid to a `width × height` photo.
    init(cellWidth: Int, cellHeight: Int, width: Int, height: Int) {
        precondition(cellWidth > 0 && cellHeight > 0 && width > 0 && height > 0, "non-empty grid and photo")
        self.cellWidth = cellWidth
        let scaleX = 1 / (Double(width) / Double(cellWidth)), scaleY = 1 / (Double(height) / Double(cellHeight))
        var column = [Int32](repeating: 0, count: width), weights = [SIMD2<Float>](repeating: .zero, count: width)
        var two = [Bool](repeating: true, count: width)
        var pastRight = false
        for x in 0 ..< width {
            var f = Float((Double(x) + 0.5) * scaleX - 0.5)
            var s = Int(f.rounded(.down))
            f -= Float(s)
            if s < 0 { (f, s) = (0, 0) }
            if s + 1 >= cellWidth {
                pastRight = true
                if s >= cellWidth - 1 { (f, s) = (0, cellWidth - 1) }
            }
            // OpenCV's `xmax`: from the first column whose right tap leaves the grid on, one tap.
            two[x] = !pastRight
            column[x] = Int32(s)
            weights[x] = SIMD2(1 - f, f)
        }
        var rows = [SIMD2<Int32>](repeating: .zero, count: height), rowWeights = [SIMD2<Float>](repeating: .zero, count: height)
        for y in 0 ..< height {
            var f = Float((Double(y) + 0.5) * scaleY - 0.5)
            let s = Int(f.rounded(.down))
            f -= Float(s)
            rows[y] = SIMD2(Int32(min(max(s, 0), cellHeight - 1)), Int32(min(max(s + 1, 0), cellHeight - 1)))
            rowWeights[y] = SIMD2(1 - f, f)
        }
        self.column = column
        columnWeights = weights
        twoColumns = two
        self.rows = rows
        self.rowWeights = rowWeights
    }

    /// Every cell row of `map` interpolated along x at every photo column (OpenCV's horizontal
    /// pass): `cellHeight × width` values, row-major; `value(rows:x:y:)` finishes a pixel from them.
    /// A few cell rows wide, not a photo-sized map.
    func horizontalPass(_ map: UnsafePointer<Float>, cellHeight: Int) -> [Float] {
        let width = column.count
        return [Float](unsafeUninitializedCapacity: cellHeight * width) { out, initialized in
            for r in 0 ..< cellHeight {
                let row = map + r &* cellWidth, o = out.nonEmptyBase + r &* width
                for x in 0 ..< width { o[x] = horizontal(row, x) }
            }
            initialized = cellHeight * width
        }
    }

    /// The value at photo pixel `(x, y)` from `horizontalPass`'s rows: the same as `value(_:x:y:)`.
    @inline(__always)
    func value(rows: UnsafePointer<Float>, taps: RowTaps, x: Int) -> Float {
        rows[taps.top &+ x] * taps.weights.x + rows[taps.bottom &+ x] * taps.weights.y
    }

    /// Photo row `y`'s two cell rows (as offsets into `horizontalPass`'s rows) and weights.
    struct RowTaps {
        let top: Int, bottom: Int, weights: SIMD2<Float>
    }

    /// The taps of photo row `y`.
    func taps(row y: Int) -> RowTaps {
        let width = column.count, r = rows[y]
        return RowTaps(top: Int(r.x) * width, bottom: Int(r.y) * width, weights: rowWeights[y])
    }

    /// The map's value at photo pixel `(x, y)`; `map` is the cell grid, row-major.
    @inline(__always)
    func value(_ map: UnsafePointer<Float>, x: Int, y: Int) -> Float {
        let r = rows[y], b = rowWeights[y]
        let top = horizontal(map + Int(r.x) &* cellWidth, x), bottom = horizontal(map + Int(r.y) &* cellWidth, x)
        return top * b.x + bottom * b.y
    }

    /// Row `row` of the grid interpolated at photo column `x` (OpenCV's horizontal pass).
    @inline(__always)
    private func horizontal(_ row: UnsafePointer<Float>, _ x: Int) -> Float {
        let s = Int(column[x]), a = columnWeights[x]
        return twoColumns[x] ? row[s] * a.x + row[s + 1] * a.y : row[s] * a.x
    }
}
