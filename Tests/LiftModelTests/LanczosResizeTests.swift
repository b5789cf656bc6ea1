import Foundation
import LiftImage
import LiftModel
import Testing
import TestSupport

/// `"resize": "lanczos"` against Pillow's `resize(LANCZOS)` on the same pictures, byte for byte
/// (`Tests/Fixtures/lanczos/cases.json`, from `Tools/fixtures/make_lanczos_fixtures.py`).
@Suite struct LanczosResizeTests {
    /// The fixture's picture: sample (x, y, c) by the formula the generator uses, opaque.
    private static func picture(width: Int, height: Int) -> RGBAImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0 ..< height {
            for x in 0 ..< width {
                for c in 0 ..< 3 {
                    let value = 37 * x + 91 * y + 53 * c + (x * y % 17) * 9 + 128 * ((x / 5 + y / 3) % 2)
                    pixels[(y * width + x) * 4 + c] = UInt8(value % 256)
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    @Test func matchesPillowByteForByte() throws {
        let data = try Data(contentsOf: Fixtures.url("lanczos/cases.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(document["cases"] as? [[String: Any]])
        #expect(cases.count == 6)
        for entry in cases {
            let (w, h) = (try #require(entry["width"] as? Int), try #require(entry["height"] as? Int))
            let (tw, th) = (try #require(entry["target_width"] as? Int), try #require(entry["target_height"] as? Int))
            let spec = try InputSpec(height: th, width: tw, scaling: .range(low: 0, high: 1), mean: [0, 0, 0], std: [1, 1, 1],
                                     resize: .lanczos, output: "mask")
            for threads in [1, 2] {
                let got = try Preprocess(spec: spec).resampled(Self.picture(width: w, height: h), threads: threads)
                #expect(got == (try #require(entry["rgb"] as? [Int])).map { UInt8($0) }, "\(w)×\(h) → \(tw)×\(th), \(threads) threads")
            }
        }
    }
}
