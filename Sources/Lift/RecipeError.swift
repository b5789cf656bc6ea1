/// Why a model file's `lift.recipe` document was refused (`Recipe.init(json:)`). Each case names the
/// value by its JSON path (`levels.balanced.partner.passes[0].scale`).
public enum RecipeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file carries no `lift.recipe` while its model runs only with one: the shipped subject
    /// model's levels (partner, combination) and its heads' grouping exist only in its files, and the
    /// generic levels would give other masks without saying so.
    case missing
    /// The text is not one JSON object.
    case notJSON(reason: String)
    /// `format` is not `lift.recipe/1`.
    case unsupportedFormat(String)
    /// A value the format requires is absent.
    case missingField(path: String)
    /// A key the format does not define (a misspelt key must not silently leave a default in place).
    case unknownField(path: String)
    /// A value of the wrong JSON type.
    case wrongType(path: String, expected: String, found: String)
    /// A number or count outside its limits.
    case outOfRange(path: String, value: String, expected: String)
    /// A name (partner model, combination method) Lift does not know.
    case unknownName(path: String, name: String, expected: String)

    /// What is wrong, as a clause that follows "lift.recipe: ".
    public var description: String {
        let what = switch self {
        case .missing: "the file carries none, and this model runs only with its own (Tools/conversion/write_recipe.py writes it)"
        case .notJSON(let reason): "not a JSON object (\(reason))"
        case .unsupportedFormat(let format): "format \"\(format)\" is not lift.recipe/1"
        case .missingField(let path): "\(path) is missing"
        case .unknownField(let path): "\(path) is not a key of the format"
        case .wrongType(let path, let expected, let found): "\(path) must be \(expected), not \(found)"
        case .outOfRange(let path, let value, let expected): "\(path) is \(value), expected \(expected)"
        case .unknownName(let path, let name, let expected): "\(path) names \"\(name)\", expected \(expected)"
        }
        return "lift.recipe: " + what
    }
}
