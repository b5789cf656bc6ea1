import LiftImage

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
        let visible: Float = 0.5 / 255
        var top = alpha.height, bottom = -1, left = alpha.width, right = -1
        alpha.values.withUnsafeBufferPointer { values in
            for y in 0 ..< alpha.height {
                let row = values.nonEmptyBase + y &* alpha.width
                var first = 0
                while first < alpha.width, !(row[first] >= visible) { first &+= 1 }
                guard first < alpha.width else { continue }
                var last = alpha.width &- 1
                while !(row[last] >= visible) { last &-= 1 }
                left = min(left, first)
                right = max(right, last)
                top = min(top, y)
                bottom = y
            }
        }
        return bottom < 0 ? nil : PixelBox(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }
}
