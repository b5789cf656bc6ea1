/// Wall-clock time spent in each stage of lifting one photo, in milliseconds.
///
/// `SubjectLifter.analyze(_:timings:)` fills `preprocess`, `inference` and `mask`; callers that
/// decode, composite, encode and write (the CLI) fill the rest.
public struct StageTimings: Sendable, Equatable, Codable {
    /// Reading and decoding the file.
    public var decode: Double = 0
    /// Resizing and normalising the photo into the model's input tensor.
    public var preprocess: Double = 0
    /// Running the model.
    public var inference: Double = 0
    /// Upsampling, refining and labelling the mask.
    public var mask: Double = 0
    /// Selecting subjects, compositing, cropping and scaling.
    public var composite: Double = 0
    /// Encoding the PNG(s).
    public var encode: Double = 0
    /// Writing the files.
    public var write: Double = 0

    /// All stages at zero.
    public init() {}

    /// The sum of every stage.
    public var total: Double { decode + preprocess + inference + mask + composite + encode + write }
}

/// A monotonic stopwatch for stage timings.
public struct Stopwatch: Sendable {
    private var start: ContinuousClock.Instant

    /// A stopwatch started now.
    public init() { start = ContinuousClock.now }

    /// Milliseconds since the start or the previous lap, and restarts.
    public mutating func lap() -> Double {
        let now = ContinuousClock.now
        let elapsed = start.duration(to: now)
        start = now
        return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) * 1e-15
    }
}
