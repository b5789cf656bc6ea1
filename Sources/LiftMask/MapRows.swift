import LiftImage
import LiftTensor

/// A photo-sized Float map read one row at a time: either stored (a `FloatMap`) or computed on demand
/// from something small (a model's map upsampled to the photo), so that a stage which only sums or
/// thresholds the map never holds its 4 bytes per photo pixel. Both give the same values.
package struct MapRows: @unchecked Sendable {
    // @unchecked: the stored map and the taps are read-only after init.
    /// Size in pixels.
    package let width: Int, height: Int
    private let kind: Kind

    private enum Kind {
        case stored(FloatMap)
        /// `MaskResize.bilinear`'s resample of `source` along the taps, row by row.
        case upsampled(source: FloatMap, columns: BilinearTaps, rows: BilinearTaps)
    }

    /// The rows of a stored map.
    package init(_ map: FloatMap) {
        width = map.width
        height = map.height
        kind = .stored(map)
    }

    /// The rows of `source` resampled to `width` × `height` along `columns` and `rows`.
    init(upsampling source: FloatMap, width: Int, height: Int, columns: BilinearTaps, rows: BilinearTaps) {
        precondition(source.width > 0 && source.height > 0 && columns.count == width && rows.count == height, "taps must fit")
        self.width = width
        self.height = height
        kind = .upsampled(source: source, columns: columns, rows: rows)
    }

    /// Scratch floats `body`'s row reader needs per thread (0 for a stored map).
    var scratchCount: Int {
        switch kind {
        case .stored: 0
        case let .upsampled(source, _, _): width + source.width
        }
    }

    /// Calls `body` with a row reader: `read(y, scratch)` returns a pointer to row `y`'s `width`
    /// values, valid until the next call with the same scratch (`scratchCount` floats per thread).
    func withRowReader<R>(_ body: ((Int, UnsafeMutablePointer<Float>) -> UnsafePointer<Float>) -> R) -> R {
        switch kind {
        case let .stored(map):
            return map.values.withUnsafeBufferPointer { values in
                let base = values.baseAddress
                return body { y, _ in
                    guard let base else { preconditionFailure("a non-empty map has values") }
                    return base + y &* width
                }
            }
        case let .upsampled(source, columns, rows):
            return source.values.withUnsafeBufferPointer { src in
                body { y, scratch in
                    let blended = scratch + width
                    Self.resampleRow(y, source: src.nonEmptyBase, sourceWidth: source.width, columns: columns, rows: rows,
                                     blended: blended, into: scratch, width: width)
                    return UnsafePointer(scratch)
                }
            }
        }
    }

    /// The whole map.
    package func materialized(threads: Int) -> FloatMap {
        if case let .stored(map) = kind { return map }
        let width = width, height = height, scratch = scratchCount
        let values = withRowReader { read in
            [Float](unsafeUninitializedCapacity: width * height) { out, initialized in
                nonisolated(unsafe) let out = out
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { range in
                    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: scratch)
                    defer { buffer.deallocate() }
                    for y in range { (out.nonEmptyBase + y &* width).update(from: read(y, buffer), count: width) }
                }
                initialized = width * height
            }
        }
        return FloatMap(width: width, height: height, values: values)
    }

    /// Row `y` of the bilinear resample: the two source rows blended into `blended` (`sourceWidth`
    /// floats), then the columns into `out` (`width` floats).
    @inline(__always)
    static func resampleRow(_ y: Int, source: UnsafePointer<Float>, sourceWidth: Int, columns: BilinearTaps, rows: BilinearTaps,
                            blended: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>, width: Int) {
        let r0 = rows.first[y] &* sourceWidth, r1 = rows.second[y] &* sourceWidth
        let wy = rows.weight[y]
        for i in 0 ..< sourceWidth {
            let a = source[r0 &+ i]
            blended[i] = a + wy * (source[r1 &+ i] - a)
        }
        let first = columns.first, second = columns.second, weight = columns.weight
        for x in 0 ..< width {
            let a = blended[first[x]]
            out[x] = a + weight[x] * (blended[second[x]] - a)
        }
    }
}
