import LiftMask

/// One subject found in a photo: a connected foreground region of the refined mask, or with
/// instances by model (`InstanceSource.model`) what the model's instance cues make of the regions: a
/// part of one (touching subjects apart) or several (the visible parts of an occluded subject).
///
/// Subjects are numbered by decreasing area: `index` 0 is the largest. Its pixels carry the label
/// `index + 1` in `Analysis.labels` (0 is background), as in Vision's `VNInstanceMaskObservation`.
public struct Subject: Sendable, Hashable, Identifiable {
    /// Position in `Analysis.subjects`, 0 = largest.
    public let index: Int
    /// Pixel count of the subject's hard mask.
    public let area: Int
    /// Smallest box holding every pixel of the hard mask, in photo pixels.
    public let boundingBox: PixelBox
    /// Mean of the subject's pixel centres, in photo pixels.
    public let centroid: PixelPoint
    /// Mean foreground probability (the model's map, upsampled) over the subject's pixels, 0…1: how sure the model is.
    public let score: Float

    /// Same as `index`.
    public var id: Int { index }
    /// The subject's value in the label map: `index + 1`.
    public var label: Int32 { Int32(index + 1) }

    /// A subject from its statistics (normally made by `Analysis`).
    public init(index: Int, area: Int, boundingBox: PixelBox, centroid: PixelPoint, score: Float) {
        self.index = index
        self.area = area
        self.boundingBox = boundingBox
        self.centroid = centroid
        self.score = score
    }
}
