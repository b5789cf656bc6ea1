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

extension OutputLayout {
    /// The most pixels an output canvas (the crop with its margin, made square) may have for a photo
    /// of `photoWidth × photoHeight`: 4 times the photo's pixels, at least 16 Mi pixels (4096×4096), so
    /// a margin or a square canvas never makes an output whose compositing and encoding cost far
    /// more than the photo's (a 100×100 photo with a 6900-pixel margin asked for 197 MP).
    public static func maxCanvasPixels(photoWidth: Int, photoHeight: Int) -> Int {
        let (pixels, overflow) = max(0, photoWidth).multipliedReportingOverflow(by: max(0, photoHeight))
        return overflow || pixels > Int.max / 4 ? Int.max : max(4 * pixels, 16 << 20)
    }
}
