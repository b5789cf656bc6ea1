/// Why a photo could not be cut out as asked after it was analysed (the request fits no subject).
public enum CutoutError: Error, Equatable, CustomStringConvertible {
    /// `--at X,Y` found no subject under or near the point.
    case noSubjectAt(x: Double, y: Double, subjectCount: Int)
    /// `--at X,Y` is outside the photo (pixels `0 ..< width`, `0 ..< height`).
    case pointOutsidePhoto(x: Double, y: Double, width: Int, height: Int)
    /// `--instances` named a subject number the photo does not have.
    case noSuchSubject(number: Int, subjectCount: Int)
    /// `--crop` was asked for but no subject was found to crop to.
    case nothingToCrop
    /// The label map holds more subjects than a 16-bit PNG can number.
    case tooManySubjectsForLabels(count: Int)
    /// `--each` was asked for but no subject was kept, so there is no file to write.
    case noSubjectToWrite

    public var description: String {
        switch self {
        case .noSubjectAt(let x, let y, let count):
            return "no subject at \(Self.number(x)),\(Self.number(y)) (the photo has \(count) subject\(count == 1 ? "" : "s"))"
        case .pointOutsidePhoto(let x, let y, let width, let height):
            return "\(Self.number(x)),\(Self.number(y)) is outside the photo, which is \(width)x\(height) pixels (X from 0 to \(width - 1), Y from 0 to \(height - 1))"
        case .noSuchSubject(let number, let count):
            return "no subject \(number): the photo has \(count) subject\(count == 1 ? "" : "s")"
        case .nothingToCrop:
            return "no subject found, nothing to crop to"
        case .noSubjectToWrite:
            return "no subject found, so --each wrote no file"
        case .tooManySubjectsForLabels(let count):
            return "\(count) subjects do not fit a 16-bit label map (at most 65,535)"
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
