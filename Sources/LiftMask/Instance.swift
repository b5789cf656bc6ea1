/// One connected foreground region and its statistics.
public struct Instance: Sendable, Hashable {
    /// Label in the label map (1-based; 0 is background).
    public var label: Int32
    /// Pixel count.
    public var area: Int
    /// Smallest box holding every pixel.
    public var boundingBox: PixelBox
    /// Mean of the pixel centres (pixel `(i, j)` has centre `(i + 0.5, j + 0.5)`).
    public var centroid: PixelPoint
    /// Mean of the probability (or soft alpha) over the pixels, 0…1; 1 when no map was given.
    public var score: Float

    /// An instance from its statistics.
    public init(label: Int32, area: Int, boundingBox: PixelBox, centroid: PixelPoint, score: Float) {
        self.label = label
        self.area = area
        self.boundingBox = boundingBox
        self.centroid = centroid
        self.score = score
    }
}

/// A minimum component area, absolute or relative to the image.
public enum MinimumArea: Sendable, Hashable {
    /// A pixel count.
    case pixels(Int)
    /// A fraction of the image's pixel count (0.0005 = 0.05 %).
    case fraction(Double)

    /// The area in pixels for an image of `pixelCount` pixels.
    public func pixels(forImagePixels pixelCount: Int) -> Int {
        switch self {
        case let .pixels(n): return max(0, n)
        case let .fraction(f): return max(0, Int(saturating: Double(pixelCount) * f, rounding: .up))
        }
    }
}

/// How a hard mask becomes instances.
public struct InstanceOptions: Sendable, Hashable {
    /// Neighbourhood that joins pixels.
    public var connectivity: Connectivity
    /// Components smaller than this are specks: removed from the mask, no instance.
    public var minimumArea: MinimumArea
    /// Fill background regions enclosed by foreground (off by default: rings and letters keep holes).
    public var fillHoles: Bool
    /// Keep only the largest instance.
    public var keepLargestOnly: Bool

    /// Options; defaults: 8-connectivity, specks under 0.05 % of the image dropped, holes kept, all instances.
    public init(connectivity: Connectivity = .eight, minimumArea: MinimumArea = .fraction(0.0005),
                fillHoles: Bool = false, keepLargestOnly: Bool = false) {
        self.connectivity = connectivity
        self.minimumArea = minimumArea
        self.fillHoles = fillHoles
        self.keepLargestOnly = keepLargestOnly
    }
}
