/// Hard limits a decoder checks before it allocates, so hostile files fail fast with bounded memory.
///
/// Every decoder in Lift (PNG, JPEG) and the weight loader take these; sizes are in bytes or pixels.
public struct DecodingLimits: Sendable, Equatable {
    /// Largest accepted `width * height` (default 200 megapixels).
    public var maxPixels: Int
    /// Largest accepted width or height on its own (default 1 << 24, as libspng).
    public var maxDimension: Int
    /// Largest single chunk / segment payload in bytes (default 64 MiB).
    public var maxChunkBytes: Int
    /// Largest total of decompressed bytes a decoder may produce (default 2 GiB).
    public var maxInflatedBytes: Int
    /// The most memory one image may take through decoding and a cut-out, in bytes: an image whose
    /// `MemoryBudget.estimate` (from its header's size) is larger is refused before its pixels are
    /// allocated. Default `MemoryBudget.machine`: the smallest of physical memory, the container's
    /// limit and `ulimit -v`/`-d`.
    public var maxMemoryBytes: Int
    /// The decoding work a file may ask for, as visits of each of its coefficients by all of a JPEG's
    /// scans together (default 16: a valid progression takes at most 14, a sequential file one).
    /// A scan that would pass it is refused before it is decoded, so the work is bounded by the
    /// pixel count whatever the file repeats. (A PNG's work is bounded by its inflated bytes.)
    public var maxCoefficientPasses: Int

    /// Limits with the defaults above, overridable one by one.
    public init(maxPixels: Int = 200_000_000, maxDimension: Int = 1 << 24,
                maxChunkBytes: Int = 64 << 20, maxInflatedBytes: Int = 2 << 30,
                maxMemoryBytes: Int = MemoryBudget.machine.bytes, maxCoefficientPasses: Int = 16) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxChunkBytes = maxChunkBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.maxMemoryBytes = maxMemoryBytes
        self.maxCoefficientPasses = maxCoefficientPasses
    }

    /// The defaults.
    public static let `default` = DecodingLimits()
}
