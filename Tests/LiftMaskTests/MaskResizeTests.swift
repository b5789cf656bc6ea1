import LiftImage
import LiftMask
import Testing

@Suite struct MaskResizeTests {
    @Test func halfPixelUpsamplingOfTwoValues() throws {
        // Two source pixels, centres at 0.5 and 1.5 in map units; output pixel X samples (X + 0.5)/2 - 0.5.
        let map = FloatMap(width: 2, height: 1, values: [0, 1])
        let resized = try MaskResize.bilinear(map, width: 4, height: 1)
        #expect(resized.values == [0, 0.25, 0.75, 1])
    }

    @Test func sameSizeIsIdentity() throws {
        let map = FloatMap(width: 3, height: 2, values: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
        #expect(try MaskResize.bilinear(map, width: 3, height: 2) == map)
    }

    @Test func verticalAndDownsampledPositions() throws {
        let map = FloatMap(width: 1, height: 4, values: [0, 1, 2, 3])
        // 4 → 2 rows: output row Y samples 2Y + 0.5.
        #expect(try MaskResize.bilinear(map, width: 1, height: 2).values == [0.5, 2.5])
        // 4 → 3 columns-wide output repeats the column.
        #expect(try MaskResize.bilinear(map, width: 3, height: 4).values == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
    }

    @Test func letterboxReadsOnlyTheContentRectangle() throws {
        // Map rows 0 and 3 are padding (value 9); the photo is rows 1…2.
        let map = FloatMap(width: 1, height: 4, values: [9, 0, 1, 9])
        let resized = try MaskResize.bilinear(map, width: 1, height: 4, placement: .letterboxed(x: 0, y: 1, width: 1, height: 2))
        #expect(resized.values == [0, 0.25, 0.75, 1])
    }

    @Test func emptyMapThrows() {
        #expect(throws: MaskError.emptyInput(what: "probability map", width: 0, height: 3)) {
            try MaskResize.bilinear(FloatMap(width: 0, height: 3), width: 4, height: 4)
        }
    }

    @Test func thresholdIsInclusive() {
        let mask = Threshold.mask(FloatMap(width: 4, height: 1, values: [0.2, 0.5, 0.51, 1]), threshold: 0.5)
        #expect(mask.pixels == [0, 255, 255, 255])
    }
}
