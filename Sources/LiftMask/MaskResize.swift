import LiftImage
import LiftTensor

/// Where the photo sits inside a model's probability map.
public enum MapPlacement: Sendable, Hashable {
    /// The whole photo was stretched onto the whole map, aspect ratio not kept (`"resize"`:
    /// `"stretch"` or `"area"`).
    case stretched
    /// The photo was scaled into a sub-rectangle of the map (letterbox), given in map pixels
    /// (fractions allowed); the rest of the map is padding and is ignored.
    case letterboxed(x: Double, y: Double, width: Double, height: Double)

    /// The photo's rectangle in map pixels.
    func content(mapWidth: Int, mapHeight: Int) -> (x: Double, y: Double, width: Double, height: Double) {
        switch self {
        case .stretched: return (0, 0, Double(mapWidth), Double(mapHeight))
        case let .letterboxed(x, y, width, height): return (x, y, width, height)
        }
    }

    /// How many photo pixels one map pixel spans (the larger of the two axes): the width of the
    /// blur that upsampling leaves at an edge.
    public func upsamplingFactor(mapWidth: Int, mapHeight: Int, photoWidth: Int, photoHeight: Int) -> Double {
        let content = content(mapWidth: mapWidth, mapHeight: mapHeight)
        return max(Double(photoWidth) / max(content.width, 1e-9), Double(photoHeight) / max(content.height, 1e-9))
    }
}

/// Resizing of single-channel maps.
public enum MaskResize {
    /// Bilinear resize of a probability map to the photo's size.
    ///
    /// Pixel centres are aligned the way a half-pixel resize (PyTorch `align_corners=False`, TF
    /// `half_pixel_centers=True`, the graph format's `"half_pixel"`) maps the photo onto the map:
    /// output pixel `X` samples the map at `content.x + (X + 0.5) * content.width / width - 0.5`,
    /// likewise for rows, and positions clamp to the content's edge pixels (letterbox padding is
    /// never read).
    /// - Parameters:
    ///   - map: the map, at least 1×1.
    ///   - width, height: output size (the photo's).
    ///   - placement: where the photo sits in the map.
    ///   - threads: worker threads.
    /// - Throws: `MaskError.emptyInput` for an empty map or output, `.invalidParameter` for a
    ///   letterbox rectangle that is under one pixel or not inside the map.
    public static func bilinear(_ map: FloatMap, width: Int, height: Int, placement: MapPlacement = .stretched,
                                threads: Int = Parallel.defaultThreads) throws -> FloatMap {
        try MapRows(bilinearRows(map, width: width, height: height, placement: placement)).materialized(threads: threads)
    }

    /// `bilinear`'s result as rows computed on demand (same values, same errors), for stages that
    /// read the upsampled map once and need not hold it.
    package static func bilinearRows(_ map: FloatMap, width: Int, height: Int,
                                     placement: MapPlacement = .stretched) throws -> any MapRowSampler {
        guard map.width > 0, map.height > 0 else {
            throw MaskError.emptyInput(what: "probability map", width: map.width, height: map.height)
        }
        guard width > 0, height > 0 else { throw MaskError.emptyInput(what: "output", width: width, height: height) }
        let content = placement.content(mapWidth: map.width, mapHeight: map.height)
        guard content.width >= 1, content.height >= 1, content.x >= 0, content.y >= 0,
              content.x + content.width <= Double(map.width), content.y + content.height <= Double(map.height) else {
            throw MaskError.invalidParameter(name: "letterbox", value: "\(content)",
                                             expected: "a rectangle of at least 1×1 inside the \(map.width)×\(map.height) map")
        }
        let scaleX = content.width / Double(width), scaleY = content.height / Double(height)
        let columns = BilinearTaps(count: width, sourceCount: map.width, scale: scaleX, offset: content.x + 0.5 * scaleX - 0.5,
                                   clamp: content.x ... content.x + content.width - 1)
        let rows = BilinearTaps(count: height, sourceCount: map.height, scale: scaleY, offset: content.y + 0.5 * scaleY - 0.5,
                                clamp: content.y ... content.y + content.height - 1)
        return UpsampledRows(source: map, width: width, height: height, columns: columns, rows: rows)
    }
}

/// Precomputed two-tap bilinear positions along one axis, kept in raw buffers so hot loops index
/// them without bounds checks or reference counting. Immutable after `init`.
final class BilinearTaps: @unchecked Sendable {
    /// Left/top source index of each output position.
    let first: UnsafeMutablePointer<Int>
    /// Right/bottom source index (`first + 1`, clamped).
    let second: UnsafeMutablePointer<Int>
    /// Weight of `second`, 0…1.
    let weight: UnsafeMutablePointer<Float>
    /// Number of output positions.
    let count: Int

    /// Taps for output `i` at source position `i * scale + offset`, clamped to `clamp` (default: the
    /// whole source, `0 … sourceCount - 1`).
    init(count: Int, sourceCount: Int, scale: Double, offset: Double, clamp: ClosedRange<Double>? = nil) {
        self.count = count
        first = .allocate(capacity: count)
        second = .allocate(capacity: count)
        weight = .allocate(capacity: count)
        let lowest = max(clamp?.lowerBound ?? 0, 0)
        let last = max(min(clamp?.upperBound ?? .infinity, Double(sourceCount - 1)), lowest)
        for i in 0 ..< count {
            let position = min(max(Double(i) * scale + offset, lowest), last)
            let lower = Int(position.rounded(.down))
            first[i] = lower
            second[i] = min(lower + 1, sourceCount - 1)
            weight[i] = Float(position - Double(lower))
        }
    }

    deinit {
        first.deallocate()
        second.deallocate()
        weight.deallocate()
    }
}
