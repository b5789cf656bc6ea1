import Lift

extension CutoutOption {
    /// The options only rembg has, under rembg's names (its HTTP fields and the flags of its `i`, `p`
    /// and `b` verbs), so that rembg's requests and command lines work unchanged. rembg's alpha
    /// matting (`a`) is pymatting's closed-form matting on a trimap cut from the mask by the two
    /// thresholds and an erosion; Lift's counterpart is its edge refinement (a guided filter with the
    /// photo as guide), which `a` turns on, and which has no trimap, so `af`, `ab` and `ae` are
    /// checked as rembg checks them and then have no effect. `ppm` (rembg's morphological opening and
    /// blur of the mask) has none either: Lift's mask stage makes its own edge. `extras` carries
    /// options of rembg's sessions (SAM prompts, a custom model's path) that no Lift model takes.
    static let rembgOptions: [CutoutOption] = [
        CutoutOption(nil, rembg: RembgSpelling(field: "a", flag: "-a", long: "--alpha-matting", words: 0),
                     help: "rembg's alpha matting: turns on Lift's edge refinement (a guided filter; on by default except at --quality fast)") { _, request, _ in
            request.refine = true
        },
        thresholdOption("af", long: "--alpha-matting-foreground-threshold", help: "rembg's matting foreground threshold 0...255 (default 240): accepted, no effect (Lift's refinement has no trimap)"),
        thresholdOption("ab", long: "--alpha-matting-background-threshold", help: "rembg's matting background threshold 0...255 (default 10): accepted, no effect (Lift's refinement has no trimap)"),
        CutoutOption(nil, rembg: RembgSpelling(field: "ae", flag: "-ae", long: "--alpha-matting-erode-size", words: 1), value: "N",
                     help: "rembg's matting erosion size, 0 or more (default 10): accepted, no effect (Lift's refinement has no trimap)") { value, _, spelled throws(UsageError) in
            guard let size = value.flatMap({ Int($0) }), size >= 0 else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: "a whole number from 0")
            }
        },
        CutoutOption(nil, rembg: RembgSpelling(field: "ppm", flag: "-ppm", long: "--post-process-mask", words: 0),
                     help: "rembg's mask post-processing (opening and blur): accepted, no effect (Lift's mask stage makes its own edge)") { _, _, _ in },
        CutoutOption(nil, rembg: RembgSpelling(field: "bgc", flag: "-bgc", long: "--bgcolor", words: 4), value: "R,G,B,A",
                     help: "rembg's background colour, 0...255 each (alpha optional): as background=#RRGGBBAA") { value, request, spelled throws(UsageError) in
            let parts = (value ?? "").split(separator: ",", omittingEmptySubsequences: false).map { UInt8($0.trimmingSpaces) }
            guard parts.count == 3 || parts.count == 4, !parts.contains(nil) else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: "R,G,B,A with each a whole number from 0 to 255, such as 255,255,255,255")
            }
            let channels = parts.compactMap { $0 }
            request.background = .color(RGBAColor(r: channels[0], g: channels[1], b: channels[2], a: channels.count == 4 ? channels[3] : 255))
        },
        CutoutOption(nil, rembg: RembgSpelling(field: "extras", flag: "-x", long: "--extras", words: 1), value: "JSON",
                     help: "rembg's extra session parameters (SAM prompts, a custom model's path): accepted, no effect (no Lift model takes them)") { _, _, _ in },
    ]

    /// rembg's matting thresholds `af` and `ab`: a whole number 0...255, then no effect.
    private static func thresholdOption(_ field: String, long: String, help: String) -> CutoutOption {
        CutoutOption(nil, rembg: RembgSpelling(field: field, flag: "-" + field, long: long, words: 1), value: "N", help: help) { value, _, spelled throws(UsageError) in
            guard let threshold = value.flatMap({ Int($0) }), (0...255).contains(threshold) else {
                throw .invalidValue(option: spelled, value: value ?? "", expected: "a whole number from 0 to 255")
            }
        }
    }
}
