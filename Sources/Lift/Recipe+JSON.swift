import LiftMask
import LiftModel

extension Recipe {
    /// The weight-file metadata key that holds the recipe.
    public static let metadataKey = "lift.recipe"
    /// The value of the document's `format`.
    public static let format = "lift.recipe/1"

    /// Decodes a `lift.recipe` document (GRAPH-FORMAT.md, "Recipe"): `format`, then optional
    /// `levels` (all three quality levels; absent: `generic`'s) and `grouping` (absent: none).
    /// Every key must be one the format defines, every value of its type and within its limits.
    /// - Parameter json: the document's text (UTF-8).
    /// - Throws: `RecipeError` naming the value by its JSON path.
    public init(json: String) throws(RecipeError) {
        let document: RecipeReader
        switch JSONValue.parse(Array(json.utf8)) {
        case .success(let value):
            guard let members = value.objectValue else { throw .notJSON(reason: "the document is \(value)") }
            document = RecipeReader(members, path: "")
        case .failure(let failure):
            throw .notJSON(reason: failure.message)
        }
        let format = try document.string("format")
        guard format == Self.format else { throw .unsupportedFormat(format) }
        var levels = [Self.generic.fast, Self.generic.balanced, Self.generic.accurate]
        if let reader = try document.optionalObject("levels") {
            levels = try Quality.allCases.map { quality throws(RecipeError) in try Self.level(reader.object(quality.rawValue)) }
            try reader.checkNoOtherKeys()
        }
        let grouping = try document.optionalObject("grouping").map { reader throws(RecipeError) in try Self.grouping(reader) }
        try document.checkNoOtherKeys()
        try self.init(fast: levels[0], balanced: levels[1], accurate: levels[2], grouping: grouping)
    }

    /// The recipe in a model file's metadata, nil when it has none and none is `required`.
    /// - Throws: `RecipeError` for a recipe that does not decode, `.missing` for none where one is `required`.
    static func from(metadata: [String: String], required: Bool = false) throws(RecipeError) -> Recipe? {
        guard let json = metadata[metadataKey] else {
            if required { throw .missing }
            return nil
        }
        return try Recipe(json: json)
    }

    private static func level(_ reader: RecipeReader) throws(RecipeError) -> Level {
        let passes = try Self.passes(reader, "passes")
        let epsilon = try reader.optionalNumber("refine_epsilon").map(Float.init)
        var partner: Partner?
        if let entry = try reader.optionalObject("partner") {
            let name = try entry.string("model")
            guard let model = ModelName(rawValue: name) else {
                throw .unknownName(path: entry.path("model"), name: name,
                                   expected: "a shipped model (" + ModelName.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            let combination = try entry.object("combination")
            let method = try combination.string("method")
            guard method == "stretched_mean" else {
                throw .unknownName(path: combination.path("method"), name: method, expected: "stretched_mean")
            }
            partner = Partner(model: model, passes: try Self.passes(entry, "passes"),
                              combination: MapCombination(subjectWeight: Float(try combination.number("subject_weight")),
                                                          gain: Float(try combination.number("gain"))))
            try combination.checkNoOtherKeys()
            try entry.checkNoOtherKeys()
        }
        try reader.checkNoOtherKeys()
        return Level(passes: passes, refineEpsilon: epsilon, partner: partner)
    }

    /// The array `key` of `{"scale": number, "mirrored": bool}` objects (at most `maximumPasses`,
    /// checked before they are decoded).
    private static func passes(_ reader: RecipeReader, _ key: String) throws(RecipeError) -> [ModelPass] {
        let items = try reader.array(key)
        guard items.count <= maximumPasses else {
            throw .outOfRange(path: reader.path(key), value: "\(items.count) passes", expected: "1…\(maximumPasses)")
        }
        var passes: [ModelPass] = []
        for (k, item) in items.enumerated() {
            let path = reader.path(key) + "[\(k)]"
            guard let members = item.objectValue else { throw .wrongType(path: path, expected: "an object", found: "\(item)") }
            let pass = RecipeReader(members, path: path)
            passes.append(ModelPass(scale: try pass.number("scale"), mirrored: try pass.bool("mirrored")))
            try pass.checkNoOtherKeys()
        }
        return passes
    }

    private static func grouping(_ reader: RecipeReader) throws(RecipeError) -> InstanceGrouping.Parameters {
        var splitCheck: InstanceGrouping.SplitCheck?
        if let check = try reader.nullableObject("split_check") {
            splitCheck = InstanceGrouping.SplitCheck(
                bias: try check.number("bias"), peak: try check.number("peak"), seam: try check.number("seam"),
                spread: try check.number("spread"), support: try check.number("support"), probability: try check.number("probability"))
            try check.checkNoOtherKeys()
        }
        var affinitySplit: AffinitySplit.Parameters?
        if let split = try reader.nullableObject("affinity_split") {
            affinitySplit = AffinitySplit.Parameters(bias: Float(try split.number("bias")), minimumPiece: try split.number("minimum_piece"))
            try split.checkNoOtherKeys()
        }
        let parameters = InstanceGrouping.Parameters(
            centreThreshold: Float(try reader.number("centre_threshold")), peakWindow: try reader.integer("peak_window"),
            maximumPeaks: try reader.integer("maximum_peaks"), minimumPiece: try reader.number("minimum_piece"),
            boundaryThreshold: try reader.nullableNumber("boundary_threshold"), joinDistance: try reader.number("join_distance"),
            minimumSupport: try reader.number("minimum_support"), splitCheck: splitCheck, affinitySplit: affinitySplit)
        try reader.checkNoOtherKeys()
        return parameters
    }
}

/// Typed reads of one JSON object of a recipe, each failure naming the value's path; remembers the
/// keys read so that `checkNoOtherKeys` can refuse the rest.
private final class RecipeReader {
    private let members: [String: JSONValue]
    private let prefix: String
    private var read: Set<String> = []

    init(_ members: [String: JSONValue], path: String) {
        self.members = members
        prefix = path.isEmpty ? "" : path + "."
    }

    /// The JSON path of `key` in this object.
    func path(_ key: String) -> String { prefix + key }

    private func value(_ key: String) throws(RecipeError) -> JSONValue {
        guard let value = optional(key) else { throw .missingField(path: path(key)) }
        return value
    }

    private func optional(_ key: String) -> JSONValue? {
        read.insert(key)
        return members[key]
    }

    private func typeError(_ key: String, _ expected: String, _ found: JSONValue) -> RecipeError {
        .wrongType(path: path(key), expected: expected, found: found.description)
    }

    func string(_ key: String) throws(RecipeError) -> String {
        let value = try value(key)
        guard let text = value.stringValue else { throw typeError(key, "a string", value) }
        return text
    }

    func bool(_ key: String) throws(RecipeError) -> Bool {
        let value = try value(key)
        guard let flag = value.boolValue else { throw typeError(key, "true or false", value) }
        return flag
    }

    /// A finite number.
    func number(_ key: String) throws(RecipeError) -> Double {
        let value = try value(key)
        guard let number = value.doubleValue, number.isFinite else { throw typeError(key, "a number", value) }
        return number
    }

    func integer(_ key: String) throws(RecipeError) -> Int {
        let value = try value(key)
        guard let integer = value.intValue else { throw typeError(key, "an integer", value) }
        return integer
    }

    func array(_ key: String) throws(RecipeError) -> [JSONValue] {
        let value = try value(key)
        guard let items = value.arrayValue else { throw typeError(key, "an array", value) }
        return items
    }

    func object(_ key: String) throws(RecipeError) -> RecipeReader {
        let value = try value(key)
        guard let members = value.objectValue else { throw typeError(key, "an object", value) }
        return RecipeReader(members, path: path(key))
    }

    /// The number `key`; nil when absent.
    func optionalNumber(_ key: String) throws(RecipeError) -> Double? {
        optional(key) == nil ? nil : try number(key)
    }

    /// The object `key`; nil when absent.
    func optionalObject(_ key: String) throws(RecipeError) -> RecipeReader? {
        optional(key) == nil ? nil : try object(key)
    }

    /// The number `key`, which must be present; nil when it is `null`.
    func nullableNumber(_ key: String) throws(RecipeError) -> Double? {
        try value(key) == .null ? nil : try number(key)
    }

    /// The object `key`, which must be present; nil when it is `null`.
    func nullableObject(_ key: String) throws(RecipeError) -> RecipeReader? {
        try value(key) == .null ? nil : try object(key)
    }

    /// Throws `RecipeError.unknownField` for the first key (in sorted order) that was not read.
    func checkNoOtherKeys() throws(RecipeError) {
        if let extra = members.keys.sorted().first(where: { !read.contains($0) }) { throw .unknownField(path: path(extra)) }
    }
}
