import LiftImage
import LiftTensor

/// The runs of one polarity of a mask (maximal horizontal stretches of foreground, or of background),
/// joined into connected components with union-find.
///
/// The algorithm is run-based two-pass labelling: each row is scanned eight bytes at a time (whole
/// words of background or foreground are skipped), its runs are unioned with the overlapping runs of
/// the row above, and a second pass over the runs (not the pixels) gives every run its component.
/// Row bands are scanned in parallel and stitched at their borders. Components are numbered in
/// raster order of their first pixel. Work and memory are O(pixels / 8 + runs).
struct RunComponents {
    /// Mask width in pixels.
    let width: Int
    /// Mask height in pixels.
    let height: Int
    /// First column of each run, runs in raster order.
    var runStart: [Int32]
    /// One past the last column of each run.
    var runEnd: [Int32]
    /// Runs of row `y` are `rowOffsets[y] ..< rowOffsets[y + 1]`.
    var rowOffsets: [Int]
    /// Component (0-based, raster order of first pixel) of each run.
    var component: [Int32]
    /// Number of components.
    var componentCount: Int

    /// Rows per band: fixed, so results never depend on the thread count.
    static let bandRows = 64

    /// Finds the runs and components of `mask`.
    /// - Parameters:
    ///   - mask: row-major bytes; a pixel is foreground when non-zero.
    ///   - background: label the zero pixels instead (used to find holes).
    ///   - connectivity: 4 or 8.
    init(mask: GrayImage, background: Bool = false, connectivity: Connectivity, threads: Int) {
        self = mask.pixels.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress, width = mask.width
            return RunComponents(width: mask.width, height: mask.height, background: background, connectivity: connectivity,
                                 threads: threads, scratchBytes: 0) { y, _ in
                guard let base else { preconditionFailure("a mask with rows has pixels") }
                return base + y &* width
            }
        }
    }

    /// Finds the runs and components of a mask given row by row: `row(y, scratch)` returns row `y`'s
    /// `width` bytes (non-zero: foreground), made in `scratch` (`scratchBytes`, 16-byte aligned, one
    /// per thread) or pointing anywhere that stays valid until the next call; it is called once per
    /// row, from several threads.
    init(width: Int, height: Int, background: Bool = false, connectivity: Connectivity, threads: Int, scratchBytes: Int,
         row: (Int, UnsafeMutableRawPointer) -> UnsafePointer<UInt8>) {
        self.width = width
        self.height = height
        let bandCount = (height + Self.bandRows - 1) / Self.bandRows
        var offsets = [Int](repeating: 0, count: height + 1)
        let bands = (0 ..< bandCount).map { _ in BandRuns() }
        let eight = connectivity == .eight
        offsets.withUnsafeMutableBufferPointer { offsets in
            nonisolated(unsafe) let offsets = offsets
            Parallel.forEach(count: bandCount, threads: threads) { range in
                let scratch = UnsafeMutableRawPointer.allocate(byteCount: max(scratchBytes, 16), alignment: 16)
                defer { scratch.deallocate() }
                for band in range {
                    let rows = band * Self.bandRows ..< min((band + 1) * Self.bandRows, height)
                    bands[band].scan(width: width, rows: rows, background: background, eight: eight, rowCounts: offsets) { y in
                        row(y, scratch)
                    }
                }
            }
        }
        // Row counts to offsets; bands to one global run list.
        var total = 0
        for y in 0 ..< height {
            let count = offsets[y]
            offsets[y] = total
            total += count
        }
        offsets[height] = total
        rowOffsets = offsets
        var start = [Int32](repeating: 0, count: total)
        var end = [Int32](repeating: 0, count: total)
        var parent = [Int32](repeating: 0, count: total)
        for (band, runs) in bands.enumerated() {
            let base = offsets[min(band * Self.bandRows, height)]
            for i in 0 ..< runs.count {
                start[base + i] = runs.start[i]
                end[base + i] = runs.end[i]
                parent[base + i] = runs.parent[i] + Int32(base)
            }
        }
        // Stitch each band's first row to the previous band's last row.
        start.withUnsafeBufferPointer { start in
            end.withUnsafeBufferPointer { end in
                parent.withUnsafeMutableBufferPointer { parent in
                    for band in 1 ..< max(bandCount, 1) {
                        let y = band * Self.bandRows
                        RunUnion.unionRows(start: start.nonEmptyBase, end: end.nonEmptyBase, parent: parent.nonEmptyBase,
                                           above: offsets[y - 1] ..< offsets[y], current: offsets[y] ..< offsets[y + 1],
                                           eight: eight)
                    }
                }
            }
        }
        // Roots in raster order get consecutive components; every other run follows its parent,
        // which is always an earlier run.
        var component = [Int32](repeating: 0, count: total)
        var count: Int32 = 0
        for r in 0 ..< total {
            let p = Int(parent[r])
            if p == r {
                component[r] = count
                count += 1
            } else {
                component[r] = component[p]
            }
        }
        runStart = start
        runEnd = end
        self.component = component
        componentCount = Int(count)
    }

    /// Per-component statistics, indexed by component; `score` is the mean of `score` over the pixels
    /// (1 when `score` is nil).
    func statistics(score: MapRows?, threads: Int) -> [Instance] {
        let n = componentCount
        var area = [Int](repeating: 0, count: n)
        var minX = [Int32](repeating: .max, count: n), maxX = [Int32](repeating: .min, count: n)
        var minY = [Int32](repeating: .max, count: n), maxY = [Int32](repeating: .min, count: n)
        var sumX = [Double](repeating: 0, count: n), sumY = [Double](repeating: 0, count: n)
        var sumScore = [Double](repeating: 0, count: n)
        let runScores = score.map { runSums(of: $0, threads: threads) }
        for y in 0 ..< height {
            for r in rowOffsets[y] ..< rowOffsets[y + 1] {
                let c = Int(component[r])
                let s = Int(runStart[r]), e = Int(runEnd[r])
                let length = e - s
                area[c] += length
                minX[c] = min(minX[c], Int32(s))
                maxX[c] = max(maxX[c], Int32(e - 1))
                if minY[c] == .max { minY[c] = Int32(y) }
                maxY[c] = Int32(y)
                sumX[c] += Double((s + e - 1) * length) / 2
                sumY[c] += Double(y * length)
                if let runScores { sumScore[c] += runScores[r] }
            }
        }
        return (0 ..< n).map { c in
            let a = Double(area[c])
            return Instance(label: Int32(c + 1), area: area[c],
                            boundingBox: PixelBox(x: Int(minX[c]), y: Int(minY[c]),
                                                  width: Int(maxX[c] - minX[c]) + 1, height: Int(maxY[c] - minY[c]) + 1),
                            centroid: PixelPoint(x: sumX[c] / a + 0.5, y: sumY[c] / a + 0.5),
                            score: score == nil ? 1 : Float(sumScore[c] / a))
        }
    }

    /// The sum of `map` over each run.
    private func runSums(of map: MapRows, threads: Int) -> [Double] {
        precondition(map.width == width && map.height == height, "score map must match the mask size")
        return map.runSums(runStart: runStart, runEnd: runEnd, rowOffsets: rowOffsets, threads: threads)
    }

    /// Writes a label image: pixels of runs get `labelOf[component]`, all others 0.
    func labelImage(labelOf: [Int32], threads: Int) -> [Int32] {
        precondition(labelOf.count == componentCount, "one label per component")
        let width = width
        return [Int32](unsafeUninitializedCapacity: width * height) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            Parallel.forEach(count: height, threads: threads, minimumPerPart: 32) { rows in
                for y in rows {
                    let row = buffer.nonEmptyBase + y &* width
                    var x = 0
                    for r in rowOffsets[y] ..< rowOffsets[y + 1] {
                        let s = Int(runStart[r]), e = Int(runEnd[r])
                        (row + x).initialize(repeating: 0, count: s - x)
                        (row + s).initialize(repeating: labelOf[Int(component[r])], count: e - s)
                        x = e
                    }
                    (row + x).initialize(repeating: 0, count: width - x)
                }
            }
            initialized = width * height
        }
    }

    /// Sets the pixels of every run whose component is marked in `selected` to `value` in `pixels`.
    func paint(_ pixels: inout [UInt8], selected: [Bool], value: UInt8) {
        precondition(pixels.count == width * height && selected.count == componentCount, "paint size mismatch")
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0 ..< height {
                for r in rowOffsets[y] ..< rowOffsets[y + 1] where selected[Int(component[r])] {
                    let s = y * width + Int(runStart[r])
                    (pixels.nonEmptyBase + s).update(repeating: value, count: Int(runEnd[r] - runStart[r]))
                }
            }
        }
    }
}
