/// A single-channel Float32 map, such as a model's foreground probability (0…1).
///
/// Layout: row-major, one `Float` per pixel, no row padding; `values.count == width * height`.
public struct FloatMap: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Values, row-major.
    public var values: [Float]

    /// Wraps existing values; `values.count` must be `width * height`.
    public init(width: Int, height: Int, values: [Float]) {
        precondition(width >= 0 && height >= 0, "FloatMap size must be non-negative")
        precondition(values.count == width * height, "FloatMap needs width*height values")
        self.width = width
        self.height = height
        self.values = values
    }

    /// A new map with every value set to `value`.
    public init(width: Int, height: Int, value: Float = 0) {
        self.init(width: width, height: height, values: [Float](repeating: value, count: width * height))
    }

    /// The map quantised to 8 bits: `round(clamp(v, 0, 1) * 255)`.
    public func grayImage() -> GrayImage {
        GrayImage(width: width, height: height, pixels: values.map(Self.quantised))
    }

    /// One value quantised to 8 bits: `round(clamp(v, 0, 1) * 255)`.
    @inline(__always)
    public static func quantised(_ v: Float) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
}
