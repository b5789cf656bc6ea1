/// Errors from the mask stage: inputs that cannot be turned into a mask, a composite or a crop.
public enum MaskError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The photo or the probability map has no pixels.
    case emptyInput(what: String, width: Int, height: Int)
    /// An output would exceed the pixel limit (`width * height` overflowed or passed `limit`).
    case tooLarge(what: String, width: Int, height: Int, limit: Int)
    /// A crop was asked for but the chosen subjects cover no pixel.
    case emptySelection(subjectCount: Int)
    /// A subject index that this analysis does not have.
    case unknownSubject(index: Int, subjectCount: Int)
    /// A colour string that is not `#RRGGBB`, `#RRGGBBAA` or a known name.
    case invalidColor(String)
    /// A background description that could not be parsed.
    case invalidBackground(String)
    /// A parameter outside its allowed range.
    case invalidParameter(name: String, value: String, expected: String)

    /// What went wrong, as a lower-case clause that follows "lift: FILE: ".
    public var description: String {
        switch self {
        case let .emptyInput(what, width, height):
            return "the \(what) is empty (\(width)×\(height)); a mask needs at least one pixel"
        case let .tooLarge(what, width, height, limit):
            return "the \(what) would be \(width)×\(height) pixels, over the limit of \(limit) pixels"
        case let .emptySelection(count):
            return "cannot crop to the chosen subjects: the \(count) subject(s) selected cover no pixel"
        case let .unknownSubject(index, count):
            return "there is no subject \(index); this photo has \(count) subject(s) (0…\(max(count - 1, 0)))"
        case let .invalidColor(text):
            return "\"\(text)\" is not a colour: use #RRGGBB, #RRGGBBAA or a name such as white, black, transparent"
        case let .invalidBackground(text):
            return "\"\(text)\" is not a background: use transparent, a colour (#RRGGBB, #RRGGBBAA, white…), blur[:RADIUS] or dim[:LEVEL]"
        case let .invalidParameter(name, value, expected):
            return "\(name) = \(value) is out of range: expected \(expected)"
        }
    }
}
