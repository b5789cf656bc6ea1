import LiftImage
import LiftTensor

/// Crop boxes: the subjects' extent grown by a margin, optionally made square.
public enum Framing {
    /// `extent` grown by the margin on every side (the margin in pixels is capped at 2²⁴).
    public static func crop(extent: PixelBox, margin: Margin) -> PixelBox {
        let m = min(margin.pixels(forExtentWidth: extent.width, height: extent.height), 1 << 24)
        return PixelBox(x: extent.x - m, y: extent.y - m, width: extent.width + 2 * m, height: extent.height + 2 * m)
    }

    /// `frame` grown along its shorter side to a square with the same centre (an odd difference puts
    /// the extra pixel after: right or below).
    public static func square(_ frame: PixelBox) -> PixelBox {
        let side = max(frame.width, frame.height)
        return PixelBox(x: frame.x - (side - frame.width) / 2, y: frame.y - (side - frame.height) / 2,
                        width: side, height: side)
    }

    /// The smallest box holding every pixel of `alpha` that shows in an 8-bit image (alpha · 255
    /// rounds to 1 or more), or nil when none does.
    public static func visibleExtent(of alpha: FloatMap) -> PixelBox? {
        visibleExtent(of: MapRows(alpha), threads: 1)
    }

    /// `visibleExtent(of:)` for an alpha read row by row, rows split over `threads`.
    package static func visibleExtent(of alpha: MapRows, threads: Int) -> PixelBox? {
        let visible: Float = 0.5 / 255, width = alpha.width
        let bands = max(1, min(threads, alpha.height))
        // Per band: top, bottom, left, right of what it saw (bottom -1: nothing).
        let extents = UnsafeMutablePointer<SIMD4<Int>>.allocate(capacity: bands)
        defer { extents.deallocate() }
        nonisolated(unsafe) let shared = extents
        alpha.withRowReader { read in
            Parallel.forEach(count: bands, threads: bands) { range in
                let scratch = alpha.allocateScratch()
                defer { scratch.deallocate() }
                for band in range {
                    var extent = SIMD4(alpha.height, -1, width, -1)
                    for y in band * alpha.height / bands ..< (band + 1) * alpha.height / bands {
                        let row = read(y, scratch)
                        var first = 0
                        while first < width, !(row[first] >= visible) { first &+= 1 }
                        guard first < width else { continue }
                        var last = width &- 1
                        while !(row[last] >= visible) { last &-= 1 }
                        extent = SIMD4(min(extent[0], y), y, min(extent[2], first), max(extent[3], last))
                    }
                    shared[band] = extent
                }
            }
        }
        var top = alpha.height, bottom = -1, left = width, right = -1
        for band in 0 ..< bands where extents[band][1] >= 0 {
            top = min(top, extents[band][0])
            bottom = max(bottom, extents[band][1])
            left = min(left, extents[band][2])
            right = max(right, extents[band][3])
        }
        return bottom < 0 ? nil : PixelBox(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }
}
