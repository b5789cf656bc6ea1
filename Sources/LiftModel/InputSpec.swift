/// What a model expects as input and gives as output: the `lift.input` document of a weight file
/// (see `GRAPH-FORMAT.md`, "Input spec").
///
/// The photo's 8-bit samples are scaled (`scaling`: to `range`, or by the photo's largest sample),
/// then normalised `(x - mean) / std` per channel,
/// in `color` order, into an NHWC Float32 tensor of `height × width × 3`; the output named `output`
/// is a probability map (0…1) at the model's resolution.
public struct InputSpec: Sendable, Equatable {
    /// How the photo is fitted to the model's input size.
    public enum ResizePolicy: String, Sendable {
        /// The whole frame to `height × width`, aspect ratio not kept, bilinear from the nearest
        /// two samples, MediaPipe's geometry (pixel centres at integers): the person model's.
        case stretch
        /// The whole frame to `height × width`, aspect ratio not kept, with half-pixel centres:
        /// the mean of the area each input pixel covers when shrinking (OpenCV's `INTER_AREA`),
        /// bilinear when enlarging. The subject model's, trained on photos shrunk that way.
        case area
        /// The whole frame to `height × width`, aspect ratio not kept, exactly as Pillow's
        /// `resize(LANCZOS)` (Lanczos-3, its fixed-point arithmetic): rembg's, for its models.
        case lanczos
    }

    /// Channel order of the tensor.
    public enum ColorOrder: String, Sendable {
        case rgb
        case bgr
    }

    /// Activation already applied to the output (so it is a probability).
    public enum OutputActivation: String, Sendable {
        case none
        case sigmoid
    }

    /// How the 8-bit samples are scaled before `mean` and `std`.
    public enum Scaling: Sendable, Equatable {
        /// A 0 sample becomes `low`, a 255 sample `high` (JSON `"range": [low, high]`).
        case range(low: Float, high: Float)
        /// Each sample is divided by the largest sample of the resized photo (any channel), so that
        /// it becomes 1 (JSON `"range": "max"`; rembg's models: `image / max(image)`; a black photo
        /// stays 0).
        case maximum
    }

    /// What is done to the output map after the model, before it is used as a probability.
    public enum OutputNormalization: String, Sendable {
        /// Used as it is.
        case none
        /// Stretched so its smallest value becomes 0 and its largest 1 (rembg's post-processing; a
        /// constant map becomes 0).
        case minmax
    }

    /// Largest accepted `height` or `width`: a spec is data from a file.
    public static let maxDimension = 8192

    /// Name of the graph input the tensor feeds.
    public var name: String
    /// Input height in pixels (rows).
    public var height: Int
    /// Input width in pixels (columns).
    public var width: Int
    /// Channel order.
    public var color: ColorOrder
    /// How samples are scaled before normalisation.
    public var scaling: Scaling
    /// Value of a 0 sample and of a 255 sample before normalisation (`range[0]`, `range[1]`); for
    /// `.maximum` scaling, (0, 1) (the value of a 0 sample and of the photo's largest one).
    public var range: (low: Float, high: Float) {
        if case .range(let low, let high) = scaling { return (low, high) }
        return (0, 1)
    }
    /// Per-channel mean subtracted after scaling (3 values, in `color` order).
    public var mean: [Float]
    /// Per-channel standard deviation divided by after subtracting the mean (3 values, non-zero).
    public var std: [Float]
    /// How the photo is fitted to `height × width`.
    public var resize: ResizePolicy
    /// Name of the graph output holding the probability map.
    public var output: String
    /// Activation the graph applies before `output`.
    public var outputActivation: OutputActivation
    /// What is done to the output map after the model (JSON `output_normalize`, default none).
    public var outputNormalization: OutputNormalization

    /// A spec from its parts; the values are checked as when decoding.
    /// - Throws: `InputSpecError.invalidValue` for sizes out of range, wrong channel counts or `std` zero.
    public init(name: String = "image", height: Int, width: Int, color: ColorOrder = .rgb,
                range: (low: Float, high: Float) = (0, 1), mean: [Float] = [0, 0, 0], std: [Float] = [1, 1, 1],
                resize: ResizePolicy = .stretch, output: String = "mask",
                outputActivation: OutputActivation = .sigmoid) throws(InputSpecError) {
        try self.init(name: name, height: height, width: width, color: color, scaling: .range(low: range.low, high: range.high),
                      mean: mean, std: std, resize: resize, output: output, outputActivation: outputActivation)
    }

    /// A spec from its parts, with any scaling and output normalisation; checked as when decoding.
    /// - Throws: `InputSpecError.invalidValue` for sizes out of range, wrong channel counts or `std` zero.
    public init(name: String = "image", height: Int, width: Int, color: ColorOrder = .rgb, scaling: Scaling,
                mean: [Float], std: [Float], resize: ResizePolicy, output: String,
                outputActivation: OutputActivation = .sigmoid, outputNormalization: OutputNormalization = .none) throws(InputSpecError) {
        self.name = name
        self.height = height
        self.width = width
        self.color = color
        self.scaling = scaling
        self.mean = mean
        self.std = std
        self.resize = resize
        self.output = output
        self.outputActivation = outputActivation
        self.outputNormalization = outputNormalization
        try validate()
    }

    /// Decodes a `lift.input` JSON document.
    /// - Parameter json: the document's text (UTF-8).
    /// - Throws: `InputSpecError` naming the key that is missing or wrong.
    public init(json: String) throws(InputSpecError) {
        let document: [String: JSONValue]
        switch JSONValue.parse(Array(json.utf8)) {
        case .success(let value):
            guard let members = value.objectValue else { throw .notJSON(reason: "the document is \(value)") }
            document = members
        case .failure(let failure):
            throw .notJSON(reason: failure.message)
        }
        func member(_ key: String) throws(InputSpecError) -> JSONValue {
            guard let value = document[key] else { throw .missingKey(key) }
            return value
        }
        func integer(_ key: String) throws(InputSpecError) -> Int {
            let value = try member(key)
            guard let integer = value.intValue else { throw .invalidValue(key: key, value: value.description, reason: "must be an integer") }
            return integer
        }
        func text(_ key: String) throws(InputSpecError) -> String {
            let value = try member(key)
            guard let text = value.stringValue else { throw .invalidValue(key: key, value: value.description, reason: "must be a string") }
            return text
        }
        func numbers(_ key: String) throws(InputSpecError) -> [Float] {
            let value = try member(key)
            guard let items = value.arrayValue?.compactMap(\.doubleValue), items.count == value.arrayValue?.count else {
                throw .invalidValue(key: key, value: value.description, reason: "must be an array of numbers")
            }
            return items.map(Float.init)
        }
        func named<T: RawRepresentable>(_ key: String) throws(InputSpecError) -> T where T.RawValue == String {
            let name = try text(key)
            guard let value = T(rawValue: name) else { throw .invalidValue(key: key, value: name, reason: "unknown name") }
            return value
        }
        let layout = try text("layout")
        guard layout == "NHWC" else { throw .invalidValue(key: "layout", value: layout, reason: "only NHWC is defined") }
        let scaling: Scaling
        if try member("range").stringValue == "max" {
            scaling = .maximum
        } else {
            let range = try numbers("range")
            guard range.count == 2 else { throw .invalidValue(key: "range", value: "\(range)", reason: "must be 2 numbers or \"max\"") }
            scaling = .range(low: range[0], high: range[1])
        }
        try self.init(
            name: try text("name"), height: try integer("height"), width: try integer("width"), color: try named("color"),
            scaling: scaling, mean: try numbers("mean"), std: try numbers("std"), resize: try named("resize"),
            output: try text("output"), outputActivation: try named("output_activation"),
            outputNormalization: document["output_normalize"] == nil ? .none : try named("output_normalize"))
    }

    /// The spec as a `lift.input` JSON document (compact, keys sorted); `init(json:)` reads it back.
    public var json: String {
        var document: [String: JSONValue] = [
            "name": .string(name), "height": .int(height), "width": .int(width), "layout": .string("NHWC"),
            "color": .string(color.rawValue), "mean": .array(mean.map(Self.shortest)),
            "std": .array(std.map(Self.shortest)), "resize": .string(resize.rawValue), "output": .string(output),
            "output_activation": .string(outputActivation.rawValue),
        ]
        switch scaling {
        case .range(let low, let high): document["range"] = .array([Self.shortest(low), Self.shortest(high)])
        case .maximum: document["range"] = .string("max")
        }
        if outputNormalization != .none { document["output_normalize"] = .string(outputNormalization.rawValue) }
        return JSONValue.object(document).jsonText
    }

    /// `value` as the shortest decimal that reads back as the same Float (0.485, not 0.48500001…).
    private static func shortest(_ value: Float) -> JSONValue {
        .double(Double(value.description) ?? Double(value))
    }

    /// Field-by-field equality.
    public static func == (a: InputSpec, b: InputSpec) -> Bool {
        a.name == b.name && a.height == b.height && a.width == b.width && a.color == b.color
            && a.scaling == b.scaling && a.mean == b.mean && a.std == b.std && a.resize == b.resize
            && a.output == b.output && a.outputActivation == b.outputActivation && a.outputNormalization == b.outputNormalization
    }

    private func validate() throws(InputSpecError) {
        for (key, value) in [("height", height), ("width", width)] where !(1 ... InputSpec.maxDimension).contains(value) {
            throw .invalidValue(key: key, value: String(value), reason: "must be 1…\(InputSpec.maxDimension)")
        }
        guard range.low.isFinite, range.high.isFinite, range.low != range.high else {
            throw .invalidValue(key: "range", value: "[\(range.low), \(range.high)]", reason: "must be two different finite numbers")
        }
        guard mean.count == 3, mean.allSatisfy(\.isFinite) else {
            throw .invalidValue(key: "mean", value: "\(mean)", reason: "must be 3 finite numbers")
        }
        guard std.count == 3, std.allSatisfy({ $0.isFinite && $0 != 0 }) else {
            throw .invalidValue(key: "std", value: "\(std)", reason: "must be 3 finite non-zero numbers")
        }
    }
}

/// Why a `lift.input` document could not be decoded; `description` says which key and why.
public enum InputSpecError: Error, Equatable, CustomStringConvertible {
    /// The text is not a JSON object.
    case notJSON(reason: String)
    /// A required key is absent.
    case missingKey(String)
    /// A key holds a value of the wrong type, an unknown name, or a number out of range.
    case invalidValue(key: String, value: String, reason: String)

    public var description: String {
        switch self {
        case .notJSON(let reason): return "The model's input spec (lift.input) is not a JSON object: \(reason)."
        case .missingKey(let key): return "The model's input spec (lift.input) lacks the key \"\(key)\"."
        case let .invalidValue(key, value, reason):
            return "The model's input spec (lift.input) has \(key) = \(value), which is not valid: \(reason)."
        }
    }
}
