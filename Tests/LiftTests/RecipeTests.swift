import Foundation
import Lift
import Testing
import TestSupport

/// The recipe in a model file's metadata (`lift.recipe`, GRAPH-FORMAT.md "Recipe"): the shipped
/// subject files carry `Tools/conversion/subject_recipe.json`; a file without one runs
/// `Recipe.generic`; a file's recipe decides what its levels run; a bad recipe is a typed error
/// naming the value, and so is a subject file without its recipe.
@Suite struct RecipeTests {
    /// The recipe every export and `write_recipe.py` write, and `group.py` reads.
    static func toolsRecipeText() throws -> String {
        try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Tools/conversion/subject_recipe.json"), encoding: .utf8)
    }

    @Test func theShippedSubjectFilesCarryTheToolsRecipe() throws {
        let source = try Recipe(json: Self.toolsRecipeText())
        let lifter = try SubjectLifter(model: .subject, quality: .fast, threads: 1)
        #expect(lifter.recipe.fast == source.fast && lifter.recipe.balanced == source.balanced && lifter.recipe.accurate == source.accurate)
        #expect(lifter.recipe.grouping == nil, "the grouping travels with the instance heads, in their own file")
        #expect(try lifter.instanceGrouping(width: 640, height: 480) == source.grouping)
        #expect(source.balanced.partner?.model == .u2netp && source.fast.partner == nil)
    }

    @Test(arguments: [ModelName.person, .u2netp])
    func aFileWithoutARecipeRunsTheGenericLevels(model: ModelName) throws {
        for quality in Quality.allCases {
            let lifter = try SubjectLifter(model: model, quality: quality, threads: 1)
            #expect(lifter.recipe == .generic && lifter.partner == nil)
            #expect(lifter.analysisOptions.refine == (Recipe.generic[quality].refineEpsilon != nil))
            #expect(try lifter.instanceGrouping(width: 64, height: 64) == InstanceGrouping.Parameters())
        }
        #expect(Recipe.generic.fast.refineEpsilon == nil && Recipe.generic.balanced.refineEpsilon == 1e-2
                && Recipe.generic.accurate.refineEpsilon == 1e-3)
    }

    /// `Weights/person.safetensors` with `recipe` written into its metadata, in a scratch directory
    /// (no `SHA256SUMS` there, so the edited file is not refused).
    static func personFile(withRecipe recipe: String, in scratch: ScratchDirectory) throws -> ModelName {
        var bytes = try Fixtures.bytes(Fixtures.repositoryRoot.appendingPathComponent("Weights/person.safetensors").path, absolute: true)
        let length = bytes[0 ..< 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        var header = String(decoding: bytes[8 ..< 8 + length], as: UTF8.self)
        let opening = #"{"__metadata__":{"#
        try #require(header.hasPrefix(opening))
        let escaped = recipe.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        header = opening + #""lift.recipe":""# + escaped + #"","# + header.dropFirst(opening.count)
        var text = Array(header.utf8)
        while text.count % 8 != 0 { text.append(UInt8(ascii: " ")) }
        bytes.replaceSubrange(0 ..< 8 + length, with: (0 ..< 8).map { UInt8(truncatingIfNeeded: text.count >> (8 * $0)) } + text)
        try scratch.write(bytes, to: "person.safetensors")
        return ModelName(file: scratch.url.appendingPathComponent("person.safetensors"))
    }

    /// The shipped file `name` (in `Weights/`) with `lift.recipe` taken out of its metadata, the
    /// tensors as they are.
    static func withoutRecipe(_ name: String) throws -> [UInt8] {
        let bytes = try Fixtures.bytes(Fixtures.repositoryRoot.appendingPathComponent("Weights/\(name)").path, absolute: true)
        let length = bytes[0 ..< 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        var header = try #require(try JSONSerialization.jsonObject(with: Data(bytes[8 ..< 8 + length])) as? [String: Any])
        var metadata = try #require(header["__metadata__"] as? [String: String])
        try #require(metadata.removeValue(forKey: Recipe.metadataKey) != nil, "\(name) carries a recipe")
        header["__metadata__"] = metadata
        var text = [UInt8](try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        while text.count % 8 != 0 { text.append(UInt8(ascii: " ")) }
        return (0 ..< 8).map { UInt8(truncatingIfNeeded: text.count >> (8 * $0)) } + text + bytes[(8 + length)...]
    }

    /// The subject model runs only with its own levels (partner, combination) and its heads only with
    /// their grouping: a file of either without `lift.recipe` is a load error naming the file, never a
    /// silent run of the generic levels.
    @Test(arguments: ["subject.safetensors", "subject-instances.safetensors"])
    func aSubjectFileWithoutItsRecipeIsALoadErrorNamingTheFile(stripped: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for name in ["subject.safetensors", "subject-instances.safetensors"] {
            let shipped = try Fixtures.bytes(Fixtures.repositoryRoot.appendingPathComponent("Weights/\(name)").path, absolute: true)
            try scratch.write(name == stripped ? try Self.withoutRecipe(name) : shipped, to: name)
        }
        let error = #expect(throws: LiftError.self) {
            let lifter = try SubjectLifter(model: .subject, quality: .fast, threads: 1, environment: ["LIFT_WEIGHTS": scratch.url.path])
            _ = try lifter.instanceGrouping(width: 64, height: 64)
        }
        guard case .modelLoadFailed(let model, let path, let underlying)? = error else {
            Issue.record("expected modelLoadFailed, got \(String(describing: error))")
            return
        }
        #expect(model == .subject && path == scratch.url.appendingPathComponent(stripped).path)
        #expect(underlying as? RecipeError == .missing)
        #expect(error?.description.contains(stripped) == true && error?.description.contains("lift.recipe: the file carries none") == true,
                "\(String(describing: error))")
    }

    /// A level as JSON: `passes` as (scale, mirrored), optional ε.
    static func level(_ passes: [(Double, Bool)], epsilon: Double? = nil) -> String {
        let list = passes.map { #"{"scale":\#($0.0),"mirrored":\#($0.1)}"# }.joined(separator: ",")
        return #"{"passes":[\#(list)]"# + (epsilon.map { #","refine_epsilon":\#($0)"# } ?? "") + "}"
    }

    /// The person model's `fast` is one pass (generic); a recipe that adds the mirrored pass makes
    /// its map mirror-symmetric, and its ε reaches the analysis options.
    @Test func aFilesRecipeDecidesWhatItsLevelsRun() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let recipe = #"{"format":"lift.recipe/1","levels":{"fast":\#(Self.level([(1, false), (1, true)], epsilon: 0.05)),"#
            + #""balanced":\#(Self.level([(1, false)])),"accurate":\#(Self.level([(1, false)], epsilon: 0.001))}}"#
        let model = try Self.personFile(withRecipe: recipe, in: scratch)
        let fast = try SubjectLifter(model: model, quality: .fast, threads: 2)
        #expect(fast.recipe == (try Recipe(json: recipe)))
        #expect(fast.analysisOptions.refine && fast.analysisOptions.refineEpsilon == 0.05)
        #expect(!(try SubjectLifter(model: model, quality: .balanced, threads: 2)).analysisOptions.refine)
        let photo = try QualityPassesTests.astronaut()
        let map = try fast.probabilityMap(for: photo)
        let ofMirror = try fast.probabilityMap(for: QualityPassesTests.mirrored(photo))
        #expect(QualityPassesTests.maxDifference(map, QualityPassesTests.mirrored(ofMirror)) <= 1e-4)
        let generic = try SubjectLifter(model: .person, quality: .fast, threads: 2)
        #expect(QualityPassesTests.maxDifference(map, try generic.probabilityMap(for: photo)) > 1e-3)
    }

    @Test func aBadRecipeInAFileIsALoadErrorNamingTheValue() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let recipe = #"{"format":"lift.recipe/1","levels":{"fast":\#(Self.level([(1, false)])),"#
            + #""balanced":\#(Self.level([(40, false)])),"accurate":\#(Self.level([(1, false)]))}}"#
        let model = try Self.personFile(withRecipe: recipe, in: scratch)
        let error = #expect(throws: LiftError.self) { _ = try SubjectLifter(model: model, quality: .fast, threads: 1) }
        guard case .modelLoadFailed(_, _, let underlying)? = error, let recipeError = underlying as? RecipeError else {
            Issue.record("expected modelLoadFailed with a RecipeError, got \(String(describing: error))")
            return
        }
        #expect(recipeError == .outOfRange(path: "levels.balanced.passes[0].scale", value: "40.0", expected: "0.125…4.0"))
        #expect(error?.description.contains("lift.recipe: levels.balanced.passes[0].scale is 40.0") == true)
    }

    /// Edits of the Tools recipe (one occurrence of `from` replaced by `to`) and the path the error names.
    static let badEdits: [(from: String, to: String, path: String)] = [
        (#""format": "lift.recipe/1""#, #""format": "lift.recipe/2""#, "format"),
        (#""scale": 0.6"#, #""scale": 9"#, "levels.balanced.partner.passes[0].scale"),
        (#""scale": 0.75"#, #""scale": 0"#, "levels.fast.passes[0].scale"),
        (#""passes": [{"scale": 0.75, "mirrored": false}]"#, #""passes": []"#, "levels.fast.passes"),
        (#""passes": [{"scale": 0.75, "mirrored": false}]"#,
         #""passes": ["# + [String](repeating: #"{"scale": 1, "mirrored": false}"#, count: 9).joined(separator: ",") + "]",
         "levels.fast.passes"),
        (#""mirrored": false}]"#, #""mirrored": 0}]"#, "levels.fast.passes[0].mirrored"),
        (#""refine_epsilon": 0.01"#, #""refine_epsilon": 0"#, "levels.balanced.refine_epsilon"),
        (#""refine_epsilon": 0.01"#, #""refine_epsilon": "0.01""#, "levels.balanced.refine_epsilon"),
        (#""refine_epsilon": 0.01"#, #""refine_epsilom": 0.01"#, "levels.balanced.refine_epsilom"),
        (#""model": "u2netp""#, #""model": "../u2netp""#, "levels.balanced.partner.model"),
        (#""method": "stretched_mean""#, #""method": "maximum""#, "levels.balanced.partner.combination.method"),
        (#""gain": 1.75"#, #""gain": 100"#, "levels.balanced.partner.combination.gain"),
        (#""subject_weight": 0.7"#, #""subject_weight": 1.5"#, "levels.balanced.partner.combination.subject_weight"),
        (#""accurate": {"#, #""precise": {"#, "levels.accurate"),
        (#""centre_threshold": 0.25"#, #""centre_threshold": 2"#, "grouping.centre_threshold"),
        (#""peak_window": 3,"#, "", "grouping.peak_window"),
        (#""maximum_peaks": 8"#, #""maximum_peaks": 8.5"#, "grouping.maximum_peaks"),
        (#""probability": 0.7"#, #""probability": 1"#, "grouping.split_check.probability"),
        (#""minimum_piece": 0.03"#, #""minimum_piece": 3"#, "grouping.affinity_split.minimum_piece"),
    ]

    @Test(arguments: badEdits.indices)
    func aBadValueIsATypedErrorNamingItsPath(edit: Int) throws {
        let (from, to, path) = Self.badEdits[edit]
        let text = try Self.toolsRecipeText()
        let range = try #require(text.range(of: from), "the edit's text is in the recipe")
        let error = #expect(throws: RecipeError.self) { _ = try Recipe(json: text.replacingCharacters(in: range, with: to)) }
        let named: String? = switch error {
        case .unsupportedFormat?: "format"
        case .missingField(let p)?, .unknownField(let p)?, .wrongType(let p, _, _)?, .outOfRange(let p, _, _)?,
             .unknownName(let p, _, _)?: p
        case .notJSON?, .missing?, nil: nil
        }
        #expect(named == path, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("lift.recipe: ") == true)
    }

    @Test func notJSONAndTheBareFormatAreTold() throws {
        #expect(throws: RecipeError.self) { _ = try Recipe(json: "{") }
        #expect(throws: RecipeError.missingField(path: "format")) { _ = try Recipe(json: "{}") }
        // The format alone: the generic levels, no grouping.
        #expect(try Recipe(json: #"{"format":"lift.recipe/1"}"#) == .generic)
    }
}
