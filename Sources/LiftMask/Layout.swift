/// Space left around the subjects when cropping.
public enum Margin: Sendable, Hashable {
    /// The same number of pixels on every side.
    case pixels(Int)
    /// A percentage of the longer side of the subjects' extent, the same on every side.
    case percent(Double)

    /// The margin in pixels for an extent of the given size (never negative).
    public func pixels(forExtentWidth width: Int, height: Int) -> Int {
        switch self {
        case let .pixels(n): return max(0, n)
        case let .percent(p): return max(0, Int(saturating: Double(max(width, height)) * p / 100))
        }
    }
}

/// How the output canvas is framed: crop margin, square canvas and size cap.
public struct OutputLayout: Sendable, Hashable {
    /// Margin added around the subjects' extent when cropping.
    public var margin: Margin
    /// Make the canvas square, centred on the frame (the subject when cropping), by growing the
    /// shorter side; area outside the photo shows the background.
    public var square: Bool
    /// Longest side of the result in pixels; larger results are shrunk by area averaging. `nil`: no cap.
    public var maxLongSide: Int?

    /// A layout; the defaults crop tight, keep the aspect ratio and do not shrink.
    public init(margin: Margin = .pixels(0), square: Bool = false, maxLongSide: Int? = nil) {
        self.margin = margin
        self.square = square
        self.maxLongSide = maxLongSide
    }
}
