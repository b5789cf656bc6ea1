import LiftImage
import LiftMask
import Testing

@Suite struct FramingTests {
    @Test func cropWithPixelMargin() {
        #expect(Framing.crop(extent: PixelBox(x: 10, y: 20, width: 30, height: 40), margin: .pixels(5))
            == PixelBox(x: 5, y: 15, width: 40, height: 50))
    }

    @Test func cropWithPercentMarginOfLongerSide() {
        // 10 % of 40 = 4 on every side.
        #expect(Framing.crop(extent: PixelBox(x: 10, y: 20, width: 30, height: 40), margin: .percent(10))
            == PixelBox(x: 6, y: 16, width: 38, height: 48))
        #expect(Margin.percent(12.5).pixels(forExtentWidth: 7, height: 3) == 1)
        #expect(Margin.pixels(-3).pixels(forExtentWidth: 7, height: 3) == 0)
        // Absurd percentages saturate (the crop then caps the margin at 2²⁴) instead of trapping.
        #expect(Margin.percent(1e30).pixels(forExtentWidth: 7, height: 3) == 1 << 60)
        #expect(Framing.crop(extent: PixelBox(x: 0, y: 0, width: 2, height: 2), margin: .percent(1e300)).width == 2 + 2 << 24)
        #expect(MinimumArea.fraction(1e300).pixels(forImagePixels: 10) == 1 << 60)
        #expect(MinimumArea.fraction(.nan).pixels(forImagePixels: 10) == 0)
    }

    @Test func squareCentresOnTheFrame() {
        #expect(Framing.square(PixelBox(x: 6, y: 16, width: 38, height: 48)) == PixelBox(x: 1, y: 16, width: 48, height: 48))
        // Odd difference: the extra pixel goes right.
        #expect(Framing.square(PixelBox(x: 0, y: 0, width: 4, height: 7)) == PixelBox(x: -1, y: 0, width: 7, height: 7))
        #expect(Framing.square(PixelBox(x: 3, y: 3, width: 9, height: 2)) == PixelBox(x: 3, y: 0, width: 9, height: 9))
    }

    @Test func boxUnionAndIntersection() {
        let a = PixelBox(x: 0, y: 0, width: 4, height: 4), b = PixelBox(x: 2, y: 3, width: 5, height: 5)
        #expect(a.union(b) == PixelBox(x: 0, y: 0, width: 7, height: 8))
        #expect(a.intersection(b) == PixelBox(x: 2, y: 3, width: 2, height: 1))
        #expect(a.intersection(PixelBox(x: 9, y: 9, width: 1, height: 1)).isEmpty)
        #expect(a.description == "4x4+0+0")
    }
}

@Suite struct AreaDownscaleTests {
    @Test func halvingAveragesBlocks() {
        let image = RGBAImage(width: 4, height: 2, pixels: [
            0, 0, 0, 255, 100, 0, 0, 255, 10, 10, 10, 255, 10, 10, 10, 255,
            0, 0, 0, 255, 100, 0, 0, 255, 30, 30, 30, 255, 30, 30, 30, 255,
        ])
        let small = AreaDownscale.fit(image, maxLongSide: 2)
        #expect(small.width == 2 && small.height == 1)
        #expect(small.pixels == [50, 0, 0, 255, 20, 20, 20, 255])
    }

    @Test func transparentPixelsLendNoColour() {
        let image = RGBAImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 0])
        #expect(AreaDownscale.fit(image, maxLongSide: 1).pixels == [255, 0, 0, 128])
    }

    @Test func fractionalCoverage() {
        // 3 → 2: output 0 covers pixel 0 and half of pixel 1: (0·1 + 90·0.5)/1.5 = 30.
        let image = RGBAImage(width: 3, height: 1, pixels: [0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255])
        #expect(AreaDownscale.fit(image, maxLongSide: 2).pixels == [30, 30, 30, 255, 150, 150, 150, 255])
    }

    @Test func longSideIsCappedAndAspectKept() {
        let image = RGBAImage(width: 300, height: 200, fill: (1, 2, 3, 255))
        let small = AreaDownscale.fit(image, maxLongSide: 150)
        #expect(small.width == 150 && small.height == 100)
        #expect(small.pixels == RGBAImage(width: 150, height: 100, fill: (1, 2, 3, 255)).pixels)
        #expect(AreaDownscale.fit(image, maxLongSide: 400) == image)
        let tall = AreaDownscale.fit(RGBAImage(width: 10, height: 1000), maxLongSide: 50)
        #expect(tall.width == 1 && tall.height == 50)
    }
}
