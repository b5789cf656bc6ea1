/// The pre- and post-processing rembg gives each of its models (rembg's sessions): input size,
/// normalisation, and the min-max stretch of the first output. Every one resizes the photo with
/// Pillow's Lanczos (`InputSpec.ResizePolicy.lanczos`, bit for bit) and divides it by its largest
/// sample (`InputSpec.Scaling.maximum`).
///
/// | preset | models (file names) | input | mean | std |
/// |---|---|---|---|---|
/// | `u2net` | u2net, u2netp, u2net_human_seg, silueta | 320² | 0.485, 0.456, 0.406 | 0.229, 0.224, 0.225 |
/// | `isnet` | isnet-general-use, isnet-anime | 1024² | 0.485, 0.456, 0.406 | 1, 1, 1 |
/// | `bria` | bria-rmbg (BRIA RMBG-1.4) | 1024² | 0.5, 0.5, 0.5 | 1, 1, 1 |
public struct RembgPreset: Sendable, Equatable {
    /// The preset's name (`u2net`, `isnet`, `bria`).
    public let name: String
    /// The model file names (without `.onnx`) rembg uses it for.
    public let models: [String]
    /// Input height and width in pixels.
    public let size: Int
    /// Per-channel mean and standard deviation, RGB.
    public let mean: [Float]
    public let std: [Float]

    /// Every preset.
    public static let all: [RembgPreset] = [
        RembgPreset(name: "u2net", models: ["u2net", "u2netp", "u2net_human_seg", "silueta"], size: 320,
                    mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]),
        RembgPreset(name: "isnet", models: ["isnet-general-use", "isnet-anime"], size: 1024,
                    mean: [0.485, 0.456, 0.406], std: [1, 1, 1]),
        RembgPreset(name: "bria", models: ["bria-rmbg", "bria-rmbg-1.4"], size: 1024, mean: [0.5, 0.5, 0.5], std: [1, 1, 1]),
    ]

    /// The preset called `name`, nil when there is none.
    public static func named(_ name: String) -> RembgPreset? { all.first { $0.name == name } }

    /// The preset rembg uses for the model file named `model` (no extension), nil for other files.
    public static func forModel(_ model: String) -> RembgPreset? { all.first { $0.models.contains(model) } }

    /// The input spec for a graph imported from such a file: input `input` at `height × width`
    /// (the preset's size where the graph leaves it open), output `output`.
    public func inputSpec(input: String, output: String, height: Int?, width: Int?) throws(InputSpecError) -> InputSpec {
        try InputSpec(name: input, height: height ?? size, width: width ?? size, scaling: .maximum, mean: mean, std: std,
                      resize: .lanczos, output: output, outputActivation: .sigmoid, outputNormalization: .minmax)
    }
}
