import LiftImage
import LiftMask
import Testing
import TestSupport

@Suite struct GuidedFilterTests {
    /// A photo with a textured left object on a gradient background, and a blurred, shifted mask of it.
    static func scene(width: Int, height: Int, seed: UInt64) -> (RGBAImage, FloatMap) {
        var generator = SeededGenerator(seed: seed)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var mask = [Float](repeating: 0, count: width * height)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let inside = x < width / 2 + (y % 5)
                let i = (y * width + x) * 4
                let noise = UInt8.random(in: 0 ..< 40, using: &generator)
                pixels[i] = inside ? 200 + noise / 2 : UInt8(x * 100 / width)
                pixels[i + 1] = inside ? 60 + noise : 90
                pixels[i + 2] = inside ? 40 : UInt8(150 + y * 100 / height)
                let edge = Float(width / 2 + 2 - x) / 4
                mask[y * width + x] = min(max(0.5 + edge, 0), 1)
            }
        }
        return (RGBAImage(width: width, height: height, pixels: pixels), FloatMap(width: width, height: height, values: mask))
    }

    @Test(arguments: [(37, 23, 1, 1, Float(1e-3)), (40, 70, 3, 1, 1e-2), (9, 80, 2, 1, 1e-4), (33, 29, 5, 1, 1e-3),
                      (64, 48, 4, 2, 1e-3), (37, 41, 6, 3, 1e-3), (130, 70, 8, 4, 1e-2), (5, 3, 2, 2, 1e-3),
                      // Windows wider than the photo, and rows with no middle span or a one-pixel one.
                      (4, 30, 6, 1, 1e-3), (13, 11, 6, 1, 1e-3), (14, 9, 6, 1, 1e-3),
                      // Several of the vertical pass's 64-row bands, whose running sums start from the rows above.
                      (40, 150, 3, 1, 1e-3), (23, 200, 20, 1, 1e-3)])
    func matchesDirectReference(width: Int, height: Int, radius: Int, subsampling: Int, epsilon: Float) {
        let (photo, input) = Self.scene(width: width, height: height, seed: UInt64(width * 1000 + height))
        let expected = ReferenceMasks.guidedFilter(guide: photo, input: input, radius: radius, epsilon: Double(epsilon),
                                                   subsampling: subsampling)
        for threads in [1, 2] {
            let output = GuidedFilter(radius: radius, epsilon: epsilon, subsampling: subsampling)
                .apply(guide: photo, input: input, threads: threads)
            #expect(output.width == width && output.height == height)
            // Float32 running sums against a Float64 direct sum: the difference is rounding only.
            let worst = maxAbsDifference(output.values, expected)
            #expect(worst < 2e-4, "max |difference| \(worst)")
        }
    }

    @Test func resultDoesNotDependOnThreadCount() {
        let (photo, input) = Self.scene(width: 150, height: 260, seed: 7)
        let filter = GuidedFilter(radius: 6, epsilon: 1e-3, subsampling: 2)
        #expect(filter.apply(guide: photo, input: input, threads: 1) == filter.apply(guide: photo, input: input, threads: 2))
    }

    @Test func inputThresholdEqualsFilteringTheBinaryMap() {
        let (photo, input) = Self.scene(width: 90, height: 70, seed: 11)
        let binary = Threshold.binary(input, threshold: 0.5)
        for subsampling in [1, 3] {
            let filter = GuidedFilter(radius: 3, epsilon: 1e-3, subsampling: subsampling)
            #expect(filter.apply(guide: photo, input: input, inputThreshold: 0.5) == filter.apply(guide: photo, input: binary))
        }
    }

    @Test func constantInputStaysConstant() {
        let (photo, _) = Self.scene(width: 50, height: 40, seed: 3)
        let input = FloatMap(width: 50, height: 40, value: 1)
        let output = GuidedFilter(radius: 4, epsilon: 1e-3, subsampling: 2).apply(guide: photo, input: input)
        #expect(output.values.allSatisfy { abs($0 - 1) < 1e-4 })
    }

    @Test func edgeSnapsToThePhotoEdge() {
        // Photo: black left of column 20, white from 20. Mask: a soft ramp centred at column 20.
        let width = 40, height = 8
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0 ..< height { for x in 0 ..< 20 { for c in 0 ..< 3 { pixels[(y * width + x) * 4 + c] = 0 } } }
        let photo = RGBAImage(width: width, height: height, pixels: pixels)
        let input = FloatMap(width: width, height: height, values: (0 ..< width * height).map { i in
            min(max(Float(i % width - 14) / 12, 0), 1)
        })
        let output = GuidedFilter(radius: 8, epsilon: 1e-4).apply(guide: photo, input: input)
        // The input rises 0.083 from column 19 to 20; the refined mask puts most of its rise there
        // (measured: 0.19 → 0.75) and stays monotone.
        let row = Array(output.values[3 * width ..< 4 * width])
        #expect(row[20] - row[19] > 0.5)
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 + 1e-6 })
    }

    /// Regression: with a tiny ε, windows whose colours lie on a line or a point leave Σ + εI singular
    /// after Float rounding, which gave NaN output.
    @Test(arguments: [Float(1e-5), 1e-7, 1e-9])
    func nearlySingularWindowsStayFinite(epsilon: Float) {
        // Columns alternate between two colours (rank-1 colour spread) over a flat area; input is a step.
        let width = 60, height = 40
        let photo = RGBAImage(width: width, height: height, pixels: (0 ..< width * height).flatMap { i -> [UInt8] in
            let x = i % width
            return x < 40 ? (x % 2 == 0 ? [200, 100, 50, 255] : [100, 50, 25, 255]) : [90, 120, 200, 255]
        })
        let input = FloatMap(width: width, height: height, values: (0 ..< width * height).map { i in i % width < 23 ? 1 : 0 })
        for subsampling in [1, 2] {
            let output = GuidedFilter(radius: 2, epsilon: epsilon, subsampling: subsampling).apply(guide: photo, input: input)
            #expect(output.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
        }
    }

    @Test func defaultSubsamplingKeepsLongSideAtMost1024() {
        #expect(GuidedFilter.defaultSubsampling(width: 4000, height: 3000) == 4)
        #expect(GuidedFilter.defaultSubsampling(width: 1024, height: 700) == 1)
        #expect(GuidedFilter.defaultSubsampling(width: 300, height: 1025) == 2)
    }
}
