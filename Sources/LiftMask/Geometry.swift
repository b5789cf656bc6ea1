/// An axis-aligned rectangle of whole pixels: columns `x ..< x + width`, rows `y ..< y + height`.
///
/// Coordinates are in pixels of the image it refers to, origin top-left, y down. `x` and `y` may be
/// negative (a crop that reaches past the photo's edge); `width` and `height` are never negative.
public struct PixelBox: Sendable, Hashable, CustomStringConvertible {
    /// Left column.
    public var x: Int
    /// Top row.
    public var y: Int
    /// Number of columns.
    public var width: Int
    /// Number of rows.
    public var height: Int

    /// A box from its top-left corner and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "PixelBox size must be non-negative")
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// One past the right column.
    public var maxX: Int { x + width }
    /// One past the bottom row.
    public var maxY: Int { y + height }
    /// Pixel count, `width * height`.
    public var area: Int { width * height }
    /// True when the box holds no pixel.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// The smallest box holding both boxes (an empty box is ignored).
    public func union(_ other: PixelBox) -> PixelBox {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let left = min(x, other.x), top = min(y, other.y)
        return PixelBox(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    /// The part of this box inside `other` (empty, at this box's origin, when they do not meet).
    public func intersection(_ other: PixelBox) -> PixelBox {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        if right <= left || bottom <= top { return PixelBox(x: x, y: y, width: 0, height: 0) }
        return PixelBox(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// `"WxH+X+Y"`, the ImageMagick geometry notation.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A point in pixel coordinates: pixel `(i, j)` covers `[i, i+1) × [j, j+1)`, so its centre is
/// `(i + 0.5, j + 0.5)`. Origin top-left, y down.
public struct PixelPoint: Sendable, Hashable, CustomStringConvertible {
    /// Horizontal position in pixels.
    public var x: Double
    /// Vertical position in pixels.
    public var y: Double

    /// A point from its coordinates.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// `"(x, y)"` with two decimals.
    public var description: String {
        "(\((x * 100).rounded() / 100), \((y * 100).rounded() / 100))"
    }
}
