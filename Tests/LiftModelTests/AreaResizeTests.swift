import LiftImage
import LiftModel
import Testing

/// The `"area"` resize (the subject model's preprocessing), through `Preprocess.resampled`.
@Suite("Area resize: the mean of the covered area when shrinking, half-pixel bilinear when enlarging")
struct AreaResizeTests {
    /// Resamples a grey image given as one byte per pixel (R = G = B = the byte) and returns the red samples.
    func resized(_ grey: [UInt8], width: Int, height: Int, to target: (width: Int, height: Int)) throws -> [UInt8] {
        let pixels = grey.flatMap { v -> [UInt8] in [v, v, v, 255] }
        let spec = try InputSpec(height: target.height, width: target.width, resize: .area)
        let rgb = try Preprocess(spec: spec).resampled(RGBAImage(width: width, height: height, pixels: pixels), threads: 2)
        #expect(rgb.count == target.width * target.height * 3)
        return stride(from: 0, to: rgb.count, by: 3).map { rgb[$0] }
    }

    @Test func integerShrinkIsTheBlockMean() throws {
        // 4×2 → 2×1: each output is the mean of a 2×2 block, rounded half up.
        let out = try resized([10, 20, 200, 201,
                               30, 41, 100, 102], width: 4, height: 2, to: (2, 1))
        #expect(out == [25, 151])  // (10+20+30+41)/4 = 25.25, (200+201+100+102)/4 = 150.75
    }

    @Test func fractionalShrinkWeighsPartlyCoveredPixelsByTheirOverlap() throws {
        // 3 → 2: output 0 covers [0, 1.5), output 1 covers [1.5, 3).
        let out = try resized([30, 90, 150], width: 3, height: 1, to: (2, 1))
        #expect(out == [50, 130])  // (30 + 0.5·90) / 1.5, (0.5·90 + 150) / 1.5
    }

    @Test func enlargingIsBilinearWithHalfPixelCentres() throws {
        // 2 → 4: source positions −0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to 1).
        let out = try resized([0, 200], width: 2, height: 1, to: (4, 1))
        #expect(out == [0, 50, 150, 200])
        let column = try resized([0, 200], width: 1, height: 2, to: (1, 4))
        #expect(column == [0, 50, 150, 200])
    }

    @Test(arguments: [(7, 5), (300, 17), (1, 1), (1000, 3), (3, 1000)])
    func aConstantPhotoStaysConstant(size: (Int, Int)) throws {
        let (width, height) = size
        let out = try resized([UInt8](repeating: 173, count: width * height), width: width, height: height, to: (48, 32))
        #expect(out.allSatisfy { $0 == 173 })
    }

    @Test func everySourcePixelCountsWhenShrinking() throws {
        // A single bright pixel in a 64×64 photo shrunk to 8×8 shows in exactly one output pixel,
        // at 255/64 ≈ 4; the two-sample warp would miss it or show it whole.
        var grey = [UInt8](repeating: 0, count: 64 * 64)
        grey[37 * 64 + 21] = 255
        let out = try resized(grey, width: 64, height: 64, to: (8, 8))
        #expect(out[4 * 8 + 2] == 4)
        #expect(out.reduce(0) { $0 + Int($1) } == 4)
    }
}
