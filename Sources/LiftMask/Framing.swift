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
}
