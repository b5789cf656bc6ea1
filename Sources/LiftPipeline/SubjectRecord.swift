import Lift

/// One subject as Lift's JSON documents describe it (the CLI's `--json` and `--json-lines`, the
/// server's `/api/analyze`): its number, bounding box, area and score. Made from a `Subject` here
/// and nowhere else.
public struct SubjectRecord: Sendable, Equatable, Codable {
    /// 1-based subject number (subjects are numbered by decreasing area; the value in the label map).
    public var number: Int
    /// Bounding box in photo pixels: `[x, y, width, height]`.
    public var bbox: [Int]
    /// Area in pixels of the hard mask.
    public var area: Int
    /// Mean foreground probability over the subject, 0…1, rounded to 4 decimals.
    public var score: Double

    /// The record of `subject`.
    public init(_ subject: Subject) {
        let box = subject.boundingBox
        number = subject.index + 1
        bbox = [box.x, box.y, box.width, box.height]
        area = subject.area
        score = (Double(subject.score) * 1e4).rounded() / 1e4
    }
}
