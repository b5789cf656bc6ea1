import Foundation
import LiftImage
import LiftModel
import TestSupport
import Testing

/// One `Tests/Fixtures/person/preprocess/cases.json` entry: a source image and OpenCV's warp of it.
struct WarpCase: Decodable, CustomStringConvertible, Sendable {
    let name: String
    let sourceHeight: Int
    let sourceWidth: Int
    let height: Int
    let width: Int

    enum CodingKeys: String, CodingKey {
        case name, height, width
        case sourceHeight = "source_height", sourceWidth = "source_width"
    }

    var description: String { name }

    static func all() throws -> [WarpCase] {
        try JSONDecoder().decode([WarpCase].self, from: Data(Fixtures.bytes("person/preprocess/cases.json")))
    }
}

@Suite("Preprocess: MediaPipe's stretch and normalisation")
struct PreprocessTests {
    @Test("The stretch is bit-identical to OpenCV's warpPerspective as MediaPipe sets it up",
          arguments: try WarpCase.all())
    func stretchMatchesOpenCV(_ warp: WarpCase) throws {
        let source = try Fixtures.bytes("person/preprocess/\(warp.name).rgb")
        let expected = try Fixtures.bytes("person/preprocess/\(warp.name).tensor.rgb")
        #expect(source.count == warp.sourceWidth * warp.sourceHeight * 3)
        #expect(expected.count == warp.width * warp.height * 3)
        let image = Fixtures.opaqueImage(rgb: source, width: warp.sourceWidth, height: warp.sourceHeight)
        let preprocess = Preprocess(spec: try InputSpec(height: warp.height, width: warp.width))
        for threads in [1, 2] {
            let actual = try preprocess.resampled(image, threads: threads)
            let mismatches = zip(actual, expected).filter { $0 != $1 }.count
            #expect(actual.count == expected.count && mismatches == 0, "\(mismatches) samples differ (\(threads) threads)")
        }
    }

    @Test("Samples become v/255 in RGB order for MediaPipe's spec")
    func normalisesToUnitRange() throws {
        let preprocess = Preprocess(spec: try InputSpec(height: 1, width: 2))
        let image = RGBAImage(width: 2, height: 1, pixels: [0, 128, 255, 7, 10, 20, 30, 0])
        let values = try preprocess.tensorValues(image)
        let scale = Float(1) / 255
        #expect(values == [0, 128 * scale, 255 * scale, 10 * scale, 20 * scale, 30 * scale])
    }

    @Test("Mean, std, range and BGR order are applied per channel")
    func appliesMeanStdAndOrder() throws {
        let spec = try InputSpec(height: 1, width: 1, color: .bgr, range: (-1, 1), mean: [0.5, 0, 0], std: [2, 1, 0.5])
        let values = try Preprocess(spec: spec).tensorValues(RGBAImage(width: 1, height: 1, pixels: [255, 0, 51, 255]))
        // BGR: channel 0 is blue (51), 1 green (0), 2 red (255); v·2/255 − 1, then (x − mean) / std.
        let blue = Float(51) * (Float(2) / 255) - 1
        #expect(values == [(blue - 0.5) / 2, -1, (Float(255) * (Float(2) / 255) - 1) / 0.5])
    }

    @Test("A photo without pixels is an error, not a crash")
    func emptyImageThrows() throws {
        let preprocess = Preprocess(spec: try InputSpec(height: 4, width: 4))
        #expect(throws: PreprocessError.emptyImage(width: 0, height: 3)) {
            try preprocess.tensorValues(RGBAImage(width: 0, height: 3))
        }
    }

    @Test("Upscaling a 1×1 photo blends toward the zero border past the last pixel, as OpenCV does")
    func zeroBorderBeyondLastPixel() throws {
        let preprocess = Preprocess(spec: try InputSpec(height: 1, width: 2))
        let rgb = try preprocess.resampled(RGBAImage(width: 1, height: 1, fill: (200, 100, 50, 255)))
        // Column 1 samples x = 0.5: half the pixel, half the zero border.
        #expect(rgb == [200, 100, 50, 100, 50, 25])
    }
}

@Suite("InputSpec: decoding lift.input")
struct InputSpecTests {
    static let personJSON = #"{"color":"rgb","height":256,"layout":"NHWC","mean":[0,0,0],"name":"image","#
        + #""output":"mask","output_activation":"sigmoid","range":[0,1],"resize":"stretch","std":[1,1,1],"width":256}"#

    @Test("The person model's spec decodes")
    func decodesPersonSpec() throws {
        let spec = try InputSpec(json: InputSpecTests.personJSON)
        #expect(spec == (try InputSpec(height: 256, width: 256)))
    }

    @Test("Missing keys, unknown names and bad numbers are named in the error", arguments: [
        ("\"width\":256", "", InputSpecError.missingKey("width")),
        ("\"resize\":\"stretch\"", "\"resize\":\"letterbox\"", .invalidValue(key: "resize", value: "letterbox", reason: "unknown name")),
        ("\"std\":[1,1,1]", "\"std\":[1,0,1]", .invalidValue(key: "std", value: "[1.0, 0.0, 1.0]", reason: "must be 3 finite non-zero numbers")),
        ("\"height\":256", "\"height\":0", .invalidValue(key: "height", value: "0", reason: "must be 1…8192")),
        ("\"layout\":\"NHWC\"", "\"layout\":\"NCHW\"", .invalidValue(key: "layout", value: "NCHW", reason: "only NHWC is defined")),
        ("\"height\":256", "\"height\":\"tall\"", .invalidValue(key: "height", value: "\"tall\"", reason: "must be an integer")),
        ("\"mean\":[0,0,0]", "\"mean\":[0,\"0\",0]", .invalidValue(key: "mean", value: "[0,\"0\",0]", reason: "must be an array of numbers")),
    ])
    func rejectsBadSpecs(_ replaced: String, _ replacement: String, _ expected: InputSpecError) throws {
        var json = InputSpecTests.personJSON.replacingOccurrences(of: replaced, with: replacement)
        json = json.replacingOccurrences(of: ",,", with: ",").replacingOccurrences(of: ",}", with: "}")
        #expect(throws: expected) { try InputSpec(json: json) }
    }

    @Test("Text that is not JSON is an error")
    func rejectsNonJSON() {
        #expect(throws: InputSpecError.self) { try InputSpec(json: "{\"height\": ") }
        #expect(throws: InputSpecError.self) { try InputSpec(json: "{\"height\": \"tall\"}") }
    }
}
