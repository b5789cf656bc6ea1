import LiftImage
import LiftMask
import Testing

@Suite struct CompositorTests {
    /// 3×1 photo: red, green, blue (opaque); alpha 1, 0.5, 0.
    static let photo = RGBAImage(width: 3, height: 1, pixels: [200, 0, 0, 255, 0, 100, 0, 255, 0, 0, 50, 255])
    static let alpha = FloatMap(width: 3, height: 1, values: [1, 0.5, 0])
    static let frame = PixelBox(x: 0, y: 0, width: 3, height: 1)

    func compose(_ background: Background, frame: PixelBox = frame) throws -> [UInt8] {
        try Compositor.compose(photo: Self.photo, alpha: Self.alpha, background: background, frame: frame,
                               decontaminate: false).pixels
    }

    @Test func transparentCutOutKeepsColourAndTakesAlpha() throws {
        // 0.5 × 255 = 127.5 rounds to 128; a fully transparent pixel keeps no colour.
        #expect(try compose(.transparent) == [200, 0, 0, 255, 0, 100, 0, 128, 0, 0, 0, 0])
    }

    @Test func alphaRoundingToZeroKeepsNoColour() throws {
        // 0.001 · 255 = 0.255 rounds to alpha 0: no colour either, on the canvas and when shrunk.
        let alpha = FloatMap(width: 3, height: 1, values: [0.001, 0.003, 0])
        let cut = try Compositor.compose(photo: Self.photo, alpha: alpha, background: .transparent, frame: Self.frame,
                                         decontaminate: false)
        #expect(cut.pixels == [0, 0, 0, 0, 0, 100, 0, 1, 0, 0, 0, 0])
        let shrunk = AreaDownscale.fit(RGBAImage(width: 3, height: 1, pixels: [200, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]),
                                       maxLongSide: 1)
        #expect(shrunk.pixels == [0, 0, 0, 0])
    }

    @Test func overWhite() throws {
        // Middle: 0.5·(0,100,0) + 0.5·(255,255,255) = (127.5, 177.5, 127.5) → (128, 178, 128).
        #expect(try compose(.white) == [200, 0, 0, 255, 128, 178, 128, 255, 255, 255, 255, 255])
    }

    @Test func overParsedColourWithAlpha() throws {
        let color = try RGBAColor(parsing: "#0000FF80")
        #expect(color == RGBAColor(r: 0, g: 0, b: 255, a: 128))
        // c = 128/255; middle: alpha 0.5 + c·0.5 = 0.75098 → 191.5 → 192;
        // colour (0.5·(0,100,0) + 0.5c·(0,0,255)) / 0.75098 = (0, 66.58, 85.0) → (0, 67, 85).
        #expect(try compose(.color(color)) == [200, 0, 0, 255, 0, 67, 85, 192, 0, 0, 255, 128])
    }

    @Test func dimmedPhoto() throws {
        // Right pixel: (0, 0, 50)·0.5 = 25; middle: 0.5·(0,100,0) + 0.5·0.5·(0,100,0) = (0, 75, 0).
        #expect(try compose(.dimmed(brightness: 0.5)) == [200, 0, 0, 255, 0, 75, 0, 255, 0, 0, 25, 255])
    }

    @Test func photoBackgroundsKeepThePhotosTransparency() throws {
        // A blue subject pixel, then eleven pixels of alpha 0 hiding red: the dimmed or blurred photo
        // must not bring the hidden red back.
        let photo = RGBAImage(width: 12, height: 1, pixels: [0, 0, 200, 255] + [UInt8](repeating: 0, count: 44).enumerated().map { $0.offset % 4 == 0 ? 255 : 0 })
        let alpha = FloatMap(width: 12, height: 1, values: [1] + [Float](repeating: 0, count: 11))
        for background in [Background.dimmed(brightness: 0.5), .blurred(radius: 3)] {
            let out = try Compositor.compose(photo: photo, alpha: alpha, background: background,
                                             frame: PixelBox(x: 0, y: 0, width: 12, height: 1), decontaminate: false).pixels
            #expect(out == [0, 0, 200, 255] + [UInt8](repeating: 0, count: 44), "\(background)")
        }
        // A half-transparent photo pixel dims to half-transparent.
        let half = RGBAImage(width: 1, height: 1, pixels: [100, 50, 20, 128])
        let dimmed = try Compositor.compose(photo: half, alpha: FloatMap(width: 1, height: 1, value: 0), background: .dimmed(brightness: 0.5),
                                            frame: PixelBox(x: 0, y: 0, width: 1, height: 1), decontaminate: false)
        #expect(dimmed.pixels == [50, 25, 10, 128])
    }

    @Test func blurOfATexturedTransparencyEdgeOnTheReducedGrid() throws {
        // 2100 px wide (grid blocks of 3): noise, opaque on the left, under alpha 0 on the right. The
        // box filter's residues in the transparent part once made colours far outside 0…255 (a trap).
        var state: UInt64 = 42
        let width = 2100, height = 24
        let pixels = (0 ..< width * height).flatMap { i -> [UInt8] in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let bits = UInt32(truncatingIfNeeded: state >> 33)
            return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits >> 16),
                    i % width < 1000 ? 255 : 0]
        }
        let photo = RGBAImage(width: width, height: height, pixels: pixels)
        let alpha = FloatMap(width: width, height: height, value: 0)
        for radius in [3, 5, 9, 20] {
            let out = try Compositor.compose(photo: photo, alpha: alpha, background: .blurred(radius: radius),
                                             frame: PixelBox(x: 0, y: 0, width: width, height: height), decontaminate: false).pixels
            for y in [0, height / 2, height - 1] {
                #expect(out[(y * width + 900) * 4 + 3] == 255 && out[(y * width + 1200) * 4 + 3] == 0, "radius \(radius)")
            }
            let hiddenColour = stride(from: 0, to: out.count, by: 4).contains { out[$0 + 3] == 0 && out[$0 ..< $0 + 3] != [0, 0, 0] }
            #expect(!hiddenColour, "radius \(radius)")
        }
    }

    @Test func blurredPhotoOfUniformBackgroundIsThatColour() throws {
        let photo = RGBAImage(width: 20, height: 10, fill: (10, 20, 30, 255))
        let alpha = FloatMap(width: 20, height: 10, values: (0 ..< 200).map { $0 % 20 < 5 ? 1 : 0 })
        let out = try Compositor.compose(photo: photo, alpha: alpha, background: .blurred(radius: 4),
                                         frame: PixelBox(x: 0, y: 0, width: 20, height: 10), decontaminate: false).pixels
        #expect(out == RGBAImage(width: 20, height: 10, fill: (10, 20, 30, 255)).pixels)
    }

    @Test func blurredBackgroundLeavesTheSubjectOut() throws {
        // Bright subject on the left on a black background: the blurred background next to it stays dark.
        let photo = RGBAImage(width: 40, height: 8, pixels: (0 ..< 320).flatMap { i -> [UInt8] in
            i % 40 < 10 ? [255, 255, 255, 255] : [0, 0, 0, 255]
        })
        let alpha = FloatMap(width: 40, height: 8, values: (0 ..< 320).map { $0 % 40 < 10 ? 1 : 0 })
        let out = try Compositor.compose(photo: photo, alpha: alpha, background: .blurred(radius: 12),
                                         frame: PixelBox(x: 0, y: 0, width: 40, height: 8), decontaminate: false).pixels
        #expect(out[(4 * 40 + 11) * 4] < 10)
        #expect(out[(4 * 40 + 5) * 4] == 255)
    }

    @Test func frameOutsideThePhotoShowsTheBackground() throws {
        let frame = PixelBox(x: -1, y: 0, width: 5, height: 2)
        let out = try compose(.color(.black), frame: frame)
        #expect(out.count == 5 * 2 * 4)
        #expect(Array(out[0 ..< 8]) == [0, 0, 0, 255, 200, 0, 0, 255])
        #expect(Array(out[20 ..< 40]) == [UInt8](repeating: 0, count: 20).enumerated().map { $0.offset % 4 == 3 ? 255 : 0 })
        let transparent = try compose(.transparent, frame: frame)
        #expect(transparent[3] == 0 && transparent[7] == 255)
    }

    @Test func alphaOutsideZeroToOneIsClamped() throws {
        let alpha = FloatMap(width: 3, height: 1, values: [7, .nan, -2])
        let out = try Compositor.compose(photo: Self.photo, alpha: alpha, background: .white, frame: Self.frame, decontaminate: false)
        #expect(out.pixels == [200, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255])
    }

    @Test func oversizedFrameThrows() {
        #expect(throws: MaskError.self) {
            try compose(.transparent, frame: PixelBox(x: 0, y: 0, width: 1 << 20, height: 1 << 20))
        }
    }

    @Test func colourParsing() throws {
        #expect(try RGBAColor(parsing: "#ff8000") == RGBAColor(r: 255, g: 128, b: 0))
        #expect(try RGBAColor(parsing: "FF800040") == RGBAColor(r: 255, g: 128, b: 0, a: 64))
        #expect(try RGBAColor(parsing: "White") == .white)
        #expect(RGBAColor(r: 1, g: 2, b: 254, a: 16).description == "#0102FE10")
        for bad in ["#fff", "#12345g", "", "#1234567", "red"] {
            #expect(throws: MaskError.invalidColor(bad)) { try RGBAColor(parsing: bad) }
        }
    }
}

@Suite struct ForegroundEstimationTests {
    @Test func edgeColoursLoseTheBackground() throws {
        // Red foreground left, blue background right, a 16-pixel alpha ramp between, mixed as I = αF + (1-α)B.
        let width = 400, height = 24
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var alpha = [Float](repeating: 0, count: width * height)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let a = min(max(Float(200 - x) / 16, 0), 1)
                alpha[y * width + x] = a
                let i = (y * width + x) * 4
                pixels[i] = UInt8((a * 220 + (1 - a) * 10).rounded())
                pixels[i + 1] = 20
                pixels[i + 2] = UInt8((a * 10 + (1 - a) * 230).rounded())
            }
        }
        let photo = RGBAImage(width: width, height: height, pixels: pixels)
        let map = FloatMap(width: width, height: height, values: alpha)
        let cleaned = ForegroundEstimation.decontaminated(photo, alpha: map, threads: 2)
        // What a cut-out shows is αF: compare α·(estimate − true F) before (estimate = I) and after.
        // With the true alpha the estimate moves a pixel 1 − α² of the way to blur fusion's, so where
        // that is exact α² of the error remains, plus blur fusion's own residual (measured: 8.5 levels
        // at worst, where α → 0 leans on the local mean).
        var totalBefore: Float = 0, totalAfter: Float = 0
        for x in 185 ..< 200 {
            let i = (12 * width + x) * 4, a = alpha[12 * width + x]
            let before = max(a * abs(Float(photo.pixels[i + 2]) - 10), a * abs(Float(photo.pixels[i]) - 220))
            let after = max(a * abs(Float(cleaned.pixels[i + 2]) - 10), a * abs(Float(cleaned.pixels[i]) - 220))
            #expect(after <= a * a * before + 9, "x \(x), α \(a): \(before) → \(after)")
            totalBefore += before
            totalAfter += after
        }
        #expect(totalBefore > 300)
        #expect(totalAfter < totalBefore / 2, "premultiplied error over the ramp: \(totalBefore) → \(totalAfter)")
        // Opaque and fully transparent pixels are untouched.
        for x in [10, 300] {
            let i = (12 * width + x) * 4
            #expect(cleaned.pixels[i ..< i + 4] == photo.pixels[i ..< i + 4])
        }
    }

    /// A subject that wears the background's colours: a blue-sky field (x ≥ 200) and a subject
    /// (x < 200) striped with that same blue and a red, with an alpha that is 1 up to x = 205 (five
    /// opaque pixels of field kept, as an upsampled map leaves them), then falls to 0 over 6 px.
    static func subjectWithTheBackgroundsColours() -> (photo: RGBAImage, alpha: FloatMap) {
        let width = 400, height = 24
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var alpha = [Float](repeating: 0, count: width * height)
        for y in 0 ..< height {
            for x in 0 ..< width {
                alpha[y * width + x] = min(max(Float(211 - x) / 6, 0), 1)
                let i = (y * width + x) * 4
                let sky: (UInt8, UInt8, UInt8) = (70, 130, 220)
                (pixels[i], pixels[i + 1], pixels[i + 2]) = x >= 200 || (x / 7) % 2 == 0 ? sky : (200, 40, 30)
            }
        }
        return (RGBAImage(width: width, height: height, pixels: pixels), FloatMap(width: width, height: height, values: alpha))
    }

    @Test func opaquePixelsKeepThePhotosColourInEveryBackground() throws {
        let (photo, alpha) = Self.subjectWithTheBackgroundsColours()
        let frame = PixelBox(x: 0, y: 0, width: photo.width, height: photo.height)
        for background in [Background.transparent, .white, .color(RGBAColor(r: 0, g: 200, b: 0)), .blurred(radius: 9),
                           .dimmed(brightness: 0.4), .color(RGBAColor(r: 0, g: 0, b: 255, a: 100))] {
            let out = try Compositor.compose(photo: photo, alpha: alpha, background: background, frame: frame,
                                             decontaminate: true, threads: 2)
            var opaque = 0
            for i in 0 ..< photo.pixelCount where FloatMap.quantised(alpha.values[i]) == 255 {
                opaque += 1
                #expect(out.pixels[i * 4 ..< i * 4 + 3] == photo.pixels[i * 4 ..< i * 4 + 3], "\(background) pixel \(i % photo.width)")
                #expect(out.pixels[i * 4 + 3] == 255)
            }
            #expect(opaque == 206 * photo.height)
        }
    }

    @Test func alphaThatRoundsTo255KeepsThePhotosColour() throws {
        // 0.999 · 255 = 254.7: written as alpha 255, so it is the photo's pixel; 0.99 (252.5) is an edge.
        let photo = RGBAImage(width: 3, height: 1, pixels: [10, 20, 30, 255, 10, 20, 30, 255, 200, 200, 200, 255])
        let alpha = FloatMap(width: 3, height: 1, values: [0.999, 0.99, 0])
        for background in [Background.transparent, .white] {
            let out = try Compositor.compose(photo: photo, alpha: alpha, background: background,
                                             frame: PixelBox(x: 0, y: 0, width: 3, height: 1), decontaminate: true, threads: 1)
            #expect(Array(out.pixels[0 ..< 4]) == [10, 20, 30, 255], "\(background)")
        }
    }

    @Test func onlyPartlyTransparentPixelsAreEstimated() throws {
        let (photo, alpha) = Self.subjectWithTheBackgroundsColours()
        let cleaned = ForegroundEstimation.decontaminated(photo, alpha: alpha, threads: 2)
        for i in 0 ..< photo.pixelCount where !ForegroundEstimation.isPartlyTransparent(alpha.values[i]) {
            #expect(cleaned.pixels[i * 4 ..< i * 4 + 4] == photo.pixels[i * 4 ..< i * 4 + 4], "pixel \(i % photo.width)")
        }
    }
}
