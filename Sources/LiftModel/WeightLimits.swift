/// Hard limits the weight loader checks before it allocates, so a hostile or broken model file fails
/// fast with bounded memory. Sizes are in bytes.
public struct WeightLimits: Sendable, Equatable {
    /// Largest accepted model file (default 2 GiB).
    public var maxFileBytes: Int
    /// Largest accepted JSON header (default 64 MiB; safetensors itself allows 100 MB).
    public var maxHeaderBytes: Int
    /// Largest number of tensors in one file (default 65,536).
    public var maxTensors: Int
    /// Largest tensor rank (default 8).
    public var maxRank: Int
    /// Largest number of graph nodes (default 100,000).
    public var maxNodes: Int
    /// Largest number of elements of any activation tensor the executor plans (default 1 << 28, 1 GiB of Float32).
    public var maxActivationElements: Int
    /// Largest number of Float32 elements all the activation buffers of one planned run take together,
    /// graph input and outputs included (default 1 << 29, 2 GiB).
    public var maxPlannedElements: Int
    /// Largest number of Float32 elements all packed convolution weights take together, checked before
    /// each convolution is packed (default 1 << 28, 1 GiB; the shipped models take under 1 % of it).
    public var maxPackedWeightElements: Int

    /// Limits with the defaults above, overridable one by one.
    public init(maxFileBytes: Int = 2 << 30, maxHeaderBytes: Int = 64 << 20, maxTensors: Int = 65_536,
                maxRank: Int = 8, maxNodes: Int = 100_000, maxActivationElements: Int = 1 << 28,
                maxPlannedElements: Int = 1 << 29, maxPackedWeightElements: Int = 1 << 28) {
        self.maxFileBytes = maxFileBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxTensors = maxTensors
        self.maxRank = maxRank
        self.maxNodes = maxNodes
        self.maxActivationElements = maxActivationElements
        self.maxPlannedElements = maxPlannedElements
        self.maxPackedWeightElements = maxPackedWeightElements
    }

    /// The defaults.
    public static let `default` = WeightLimits()
}
