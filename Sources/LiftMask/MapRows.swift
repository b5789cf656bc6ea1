import LiftImage
import LiftTensor

/// Something that computes the rows of a photo-sized Float map on demand, in any order, from any
/// thread (an upsampled model map, the guided filter's output, the refined alpha).
package protocol MapRowRenderer: Sendable {
    /// Size in pixels.
    var width: Int { get }
    var height: Int { get }
    /// Scratch bytes `render` needs per thread, besides its output row.
    var scratchBytes: Int { get }
    /// Writes row `y`'s `width` values to `out`, using `scratch` (`scratchBytes`, 16-byte aligned).
    func render(row y: Int, into out: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer)
}

/// A map that can also be sampled one pixel at a time: `prepare` a row once, then read any pixel of
/// it (`render` must write exactly these values).
package protocol MapRowSampler: MapRowRenderer {
    /// Prepares row `y` in `scratch` (`scratchBytes`) for `value`.
    func prepare(row y: Int, scratch: UnsafeMutableRawPointer)
    /// The value at column `x` of the row prepared in `scratch`: the value `render` writes there.
    func value(x: Int, y: Int, prepared scratch: UnsafeMutableRawPointer) -> Float
    /// Writes columns `columns` of the row prepared in `scratch` to `out[columns]`: the values `render` writes.
    func render(row y: Int, columns: Range<Int>, into out: UnsafeMutablePointer<Float>, prepared scratch: UnsafeMutableRawPointer)
}

/// A photo-sized Float map read one row at a time: either stored (a `FloatMap`) or computed on demand
/// (`MapRowRenderer`), so that a stage which only sums, thresholds or blends the map never holds its
/// 4 bytes per photo pixel. Both give the same values.
package struct MapRows: Sendable {
    /// Size in pixels.
    package let width: Int, height: Int
    private let kind: Kind

    private enum Kind {
        case stored(FloatMap)
        case rendered(any MapRowRenderer)
    }

    /// The rows of a stored map.
    package init(_ map: FloatMap) {
        width = map.width
        height = map.height
        kind = .stored(map)
    }

    /// The rows `renderer` computes.
    package init(_ renderer: any MapRowRenderer) {
        width = renderer.width
        height = renderer.height
        kind = .rendered(renderer)
    }

    /// Scratch bytes a row reader needs per thread (0 for a stored map).
    package var scratchBytes: Int {
        switch kind {
        case .stored: 0
        case let .rendered(renderer): Self.outputBytes(width) + (renderer.scratchBytes + 15) / 16 * 16
        }
    }

    /// Calls `body` with a row reader: `read(y, scratch)` returns a pointer to row `y`'s `width`
    /// values, valid until the next call with the same scratch (`scratchBytes` per thread, from
    /// `allocateScratch`).
    package func withRowReader<R>(_ body: ((Int, UnsafeMutableRawPointer) -> UnsafePointer<Float>) throws -> R) rethrows -> R {
        switch kind {
        case let .stored(map):
            return try map.values.withUnsafeBufferPointer { values in
                let base = values.baseAddress, width = width
                return try body { y, _ in
                    guard let base else { preconditionFailure("a non-empty map has values") }
                    return base + y &* width
                }
            }
        case let .rendered(renderer):
            let width = width
            return try body { y, scratch in
                let out = scratch.assumingMemoryBound(to: Float.self)
                renderer.render(row: y, into: out, scratch: scratch + Self.outputBytes(width))
                return UnsafePointer(out)
            }
        }
    }

    /// Bytes of a rendered row at the start of the scratch, rounded up so the renderer's part stays aligned.
    private static func outputBytes(_ width: Int) -> Int { (width * 4 + 15) / 16 * 16 }

    /// Scratch for one thread's row reader; deallocate it when done.
    package func allocateScratch() -> UnsafeMutableRawPointer {
        .allocate(byteCount: max(scratchBytes, 16), alignment: 16)
    }

    /// The whole map.
    package func materialized(threads: Int) -> FloatMap {
        if case let .stored(map) = kind { return map }
        let width = width, height = height
        let values = withRowReader { read in
            [Float](unsafeUninitializedCapacity: width * height) { out, initialized in
                nonisolated(unsafe) let out = out
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { range in
                    let scratch = allocateScratch()
                    defer { scratch.deallocate() }
                    for y in range { (out.nonEmptyBase + y &* width).update(from: read(y, scratch), count: width) }
                }
                initialized = width * height
            }
        }
        return FloatMap(width: width, height: height, values: values)
    }
}

/// `MaskResize.bilinear`'s resample of a small map to the photo, row by row: the two source rows
/// blended (prepared), then the columns.
struct UpsampledRows: MapRowSampler, @unchecked Sendable {
    // @unchecked: the source and taps are read-only.
    let width: Int, height: Int
    let source: FloatMap
    let columns: BilinearTaps, rows: BilinearTaps

    init(source: FloatMap, width: Int, height: Int, columns: BilinearTaps, rows: BilinearTaps) {
        precondition(source.width > 0 && source.height > 0 && columns.count == width && rows.count == height, "taps must fit")
        self.width = width
        self.height = height
        self.source = source
        self.columns = columns
        self.rows = rows
    }

    var scratchBytes: Int { source.width * 4 }

    func prepare(row y: Int, scratch: UnsafeMutableRawPointer) {
        let blended = scratch.assumingMemoryBound(to: Float.self)
        let sourceWidth = source.width
        source.values.withUnsafeBufferPointer { src in
            let r0 = rows.first[y] &* sourceWidth, r1 = rows.second[y] &* sourceWidth
            let wy = rows.weight[y]
            for i in 0 ..< sourceWidth {
                let a = src[r0 &+ i]
                blended[i] = a + wy * (src[r1 &+ i] - a)
            }
        }
    }

    @inline(__always)
    func value(x: Int, y: Int, prepared scratch: UnsafeMutableRawPointer) -> Float {
        let blended = scratch.assumingMemoryBound(to: Float.self)
        let a = blended[columns.first[x]]
        return a + columns.weight[x] * (blended[columns.second[x]] - a)
    }

    func render(row y: Int, columns: Range<Int>, into out: UnsafeMutablePointer<Float>, prepared scratch: UnsafeMutableRawPointer) {
        for x in columns { out[x] = value(x: x, y: y, prepared: scratch) }
    }

    func render(row y: Int, into out: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer) {
        prepare(row: y, scratch: scratch)
        render(row: y, columns: 0 ..< width, into: out, prepared: scratch)
    }
}

extension MapRows {
    /// The sum of the map over each run of a run-length mask of its size: run `r` covers columns
    /// `runStart[r] ..< runEnd[r]` of the row `y` with `rowOffsets[y] ≤ r < rowOffsets[y + 1]`. With
    /// `labels`, runs whose label is 0 are skipped (their sum stays 0).
    func runSums(runStart: [Int32], runEnd: [Int32], rowOffsets: [Int], labels: [Int32]? = nil,
                 threads: Int) -> [Double] {
        var sums = [Double](repeating: 0, count: runStart.count)
        withRowReader { read in
            sums.withUnsafeMutableBufferPointer { sums in
                nonisolated(unsafe) let sums = sums
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 64) { rows in
                    let scratch = allocateScratch()
                    defer { scratch.deallocate() }
                    for y in rows where rowOffsets[y] < rowOffsets[y + 1] {
                        let row = read(y, scratch)
                        for r in rowOffsets[y] ..< rowOffsets[y + 1] where labels.map({ $0[r] != 0 }) ?? true {
                            var sum: Float = 0
                            for x in Int(runStart[r]) ..< Int(runEnd[r]) { sum += row[x] }
                            sums[r] = Double(sum)
                        }
                    }
                }
            }
        }
        return sums
    }
}
