import Lift
import Testing

@Suite struct AnalysisTests {
    static let width = 160, height = 120

    /// Where the synthetic subjects are: a red disc (radius 30 at (50, 60)), a blue 20×20 square at
    /// (110…129, 20…39) and a 4×4 speck at (140, 100).
    static func shape(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8)? {
        let dx = Double(x) + 0.5 - 50, dy = Double(y) + 0.5 - 60
        if dx * dx + dy * dy <= 900 { return (220, 30, 30) }
        if x >= 110 && x < 130 && y >= 20 && y < 40 { return (30, 40, 220) }
        if x >= 140 && x < 144 && y >= 100 && y < 104 { return (20, 200, 20) }
        return nil
    }

    /// The photo (subjects on grey) and a 40×30 probability map: each map pixel is the subjects'
    /// coverage of its 4×4 block, as a model at a quarter of the resolution would see them.
    static let scene: (RGBAImage, FloatMap) = {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let color = shape(x, y) ?? (128, 128, 128)
                pixels[(y * width + x) * 4 ..< (y * width + x) * 4 + 3] = [color.r, color.g, color.b]
            }
        }
        var map = [Float](repeating: 0, count: 40 * 30)
        for y in 0 ..< height { for x in 0 ..< width where shape(x, y) != nil { map[(y / 4) * 40 + x / 4] += 1 / 16 } }
        return (RGBAImage(width: width, height: height, pixels: pixels), FloatMap(width: 40, height: 30, values: map))
    }()

    static func analysis(_ options: Analysis.Options = Analysis.Options(minimumArea: .pixels(50))) throws -> Analysis {
        try Analysis(photo: scene.0, probability: scene.1, options: options)
    }

    @Test func marginsAndSquareCanvasesAreBoundedByThePhoto() throws {
        let analysis = try Self.analysis()
        let square = analysis.subjects[1]
        // 160×120 photo: at most 16 Mi pixels (its 4× would be smaller). The trial's 6900-pixel margin asks for ~190 MP.
        #expect(OutputLayout.maxCanvasPixels(photoWidth: Self.width, photoHeight: Self.height) == 16 << 20)
        #expect(OutputLayout.maxCanvasPixels(photoWidth: 4000, photoHeight: 3000) == 48_000_000)
        do {
            _ = try analysis.imageRows(for: [square], croppedToExtent: true, layout: OutputLayout(margin: .pixels(6900)))
            Issue.record("a 6900-pixel margin on a 160×120 photo was accepted")
        } catch let error as MaskError {
            guard case .tooLarge(let what, let width, _, 16_777_216) = error, what.hasPrefix("output canvas"), width > 13800 else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        // A generous margin within the bound still works.
        let framed = try analysis.image(for: [square], croppedToExtent: true, layout: OutputLayout(margin: .pixels(900)))
        #expect(framed.width > 1800)
    }

    @Test func subjectsAreFoundLargestFirst() throws {
        let analysis = try Self.analysis()
        try #require(analysis.subjects.count == 2)
        let disc = analysis.subjects[0], square = analysis.subjects[1]
        #expect(disc.index == 0 && square.index == 1)
        #expect(abs(disc.area - 2827) < 150, "disc area \(disc.area)")
        #expect(abs(square.area - 400) < 60, "square area \(square.area)")
        #expect(abs(disc.centroid.x - 50) < 1 && abs(disc.centroid.y - 60) < 1)
        #expect(abs(square.boundingBox.x - 110) <= 2 && abs(square.boundingBox.maxX - 130) <= 2)
        #expect(disc.score > 0.8 && disc.score <= 1)
        #expect(analysis.labels.count == 2)
        #expect(analysis.labels.label(x: 50, y: 60) == 1 && analysis.labels.label(x: 120, y: 30) == 2)
        #expect(analysis.labels.label(x: 5, y: 5) == 0 && analysis.labels.label(x: 141, y: 101) == 0)
    }

    @Test func subjectAtPoint() throws {
        let analysis = try Self.analysis()
        #expect(analysis.subject(at: PixelPoint(x: 50, y: 60))?.index == 0)
        #expect(analysis.subject(at: PixelPoint(x: 120, y: 30))?.index == 1)
        #expect(analysis.subject(at: PixelPoint(x: 5, y: 110)) == nil)
        #expect(analysis.subject(at: PixelPoint(x: 133, y: 30), searchRadius: 6)?.index == 1)
        // "The nearest anywhere": no overflow at the window's edges.
        #expect(analysis.subject(at: PixelPoint(x: 150, y: 5), searchRadius: .max)?.index == 1)
        #expect(analysis.subject(at: PixelPoint(x: -1e6, y: 5), searchRadius: .max)?.index == 0)
    }

    @Test func maskOfChosenSubjects() throws {
        let analysis = try Self.analysis()
        let square = try analysis.mask(for: [analysis.subjects[1]])
        #expect(square.width == Self.width && square.height == Self.height)
        #expect(square.values[30 * Self.width + 120] > 0.9)
        #expect(square.values[60 * Self.width + 50] == 0)
        let both = try analysis.mask(for: analysis.subjects)
        #expect(both == analysis.alpha)
        #expect(both.values[101 * Self.width + 141] == 0, "the speck is gone")
        #expect(try analysis.mask(for: []).values.allSatisfy { $0 == 0 })
    }

    @Test func croppedImageHasExactFrame() throws {
        let analysis = try Self.analysis()
        let square = analysis.subjects[1]
        // The frame holds the hard mask and the visible soft fringe.
        let box = try #require(Framing.visibleExtent(of: try analysis.mask(for: [square]))).union(square.boundingBox)
        let cut = try analysis.image(for: [square], croppedToExtent: true, background: .transparent,
                                     layout: OutputLayout(margin: .pixels(5)))
        #expect(cut.width == box.width + 10 && cut.height == box.height + 10)
        #expect(cut.pixels[3] == 0, "margin is transparent")
        let centre = ((cut.height / 2) * cut.width + cut.width / 2) * 4
        #expect(Array(cut.pixels[centre ..< centre + 4]) == [30, 40, 220, 255])

        let white = try analysis.image(for: [square], croppedToExtent: true, background: .white,
                                       layout: OutputLayout(margin: .percent(50), square: true))
        let side = max(box.width, box.height) + 2 * Int((Double(max(box.width, box.height)) * 0.5).rounded())
        #expect(white.width == side && white.height == side)
        #expect(Array(white.pixels[0 ..< 4]) == [255, 255, 255, 255])

        let capped = try analysis.image(for: analysis.subjects, background: .dimmed(brightness: 0.3),
                                        layout: OutputLayout(maxLongSide: 80))
        #expect(capped.width == 80 && capped.height == 60)
    }

    @Test func cropKeepsTheWholeSoftEdge() throws {
        let analysis = try Self.analysis()
        for subject in analysis.subjects {
            let full = try analysis.image(for: [subject])
            let crop = try analysis.image(for: [subject], croppedToExtent: true)
            func alphaSum(_ image: RGBAImage) -> Int { stride(from: 3, to: image.pixels.count, by: 4).reduce(0) { $0 + Int(image.pixels[$1]) } }
            #expect(alphaSum(crop) == alphaSum(full), "no visible pixel is cut off")
            func alpha(_ x: Int, _ y: Int) -> UInt8 { crop.pixels[(y * crop.width + x) * 4 + 3] }
            #expect((0 ..< crop.width).contains { alpha($0, 0) > 0 } && (0 ..< crop.width).contains { alpha($0, crop.height - 1) > 0 })
            #expect((0 ..< crop.height).contains { alpha(0, $0) > 0 } && (0 ..< crop.height).contains { alpha(crop.width - 1, $0) > 0 })
            #expect(crop.width >= subject.boundingBox.width && crop.height >= subject.boundingBox.height)
        }
    }

    @Test func fullFrameImageKeepsPhotoSize() throws {
        let analysis = try Self.analysis()
        let image = try analysis.image(for: [analysis.subjects[0]], background: .blurred(radius: nil))
        #expect(image.width == Self.width && image.height == Self.height)
        #expect(image.isOpaque)
        let centre = (60 * Self.width + 50) * 4
        #expect(Array(image.pixels[centre ..< centre + 3]) == [220, 30, 30])
    }

    @Test func badRequestsThrow() throws {
        let analysis = try Self.analysis()
        let stranger = Subject(index: 0, area: 1, boundingBox: PixelBox(x: 0, y: 0, width: 1, height: 1),
                               centroid: PixelPoint(x: 0.5, y: 0.5), score: 1)
        #expect(throws: MaskError.unknownSubject(index: 0, subjectCount: 2)) { try analysis.image(for: [stranger]) }
        #expect(throws: MaskError.unknownSubject(index: 0, subjectCount: 2)) { try analysis.mask(for: [stranger]) }
        let far = Subject(index: .max, area: 1, boundingBox: PixelBox(x: 0, y: 0, width: 1, height: 1),
                          centroid: PixelPoint(x: 0.5, y: 0.5), score: 1)
        #expect(throws: MaskError.unknownSubject(index: .max, subjectCount: 2)) { try analysis.mask(for: [far]) }
        #expect(throws: MaskError.emptySelection(subjectCount: 0)) { try analysis.image(for: [], croppedToExtent: true) }
        #expect(throws: MaskError.self) {
            try Analysis(photo: RGBAImage(width: 0, height: 0), probability: Self.scene.1)
        }
        #expect(throws: MaskError.self) {
            try Analysis(photo: Self.scene.0, probability: Self.scene.1, options: Analysis.Options(threshold: 1.5))
        }
    }

    @Test func optionsChangeTheResult() throws {
        let largest = try Self.analysis(Analysis.Options(minimumArea: .pixels(50), keepLargestOnly: true))
        #expect(largest.subjects.count == 1)
        let withSpeck = try Self.analysis(Analysis.Options(refine: false, minimumArea: .pixels(1)))
        #expect(withSpeck.subjects.count == 3)
        let four = try Self.analysis(Analysis.Options(minimumArea: .pixels(50), connectivity: .four, threads: 1))
        #expect(four.subjects.count == 2)
    }

    @Test func keepLargestOnlyDropsTheOthersWithTheirFringeWhileNearSpecksStay() throws {
        // 64×16, map at photo size (reach 4 px): subject A at x 2…21 and B at x 24…31 (rows 4…11,
        // 2 px apart), and a 2×2 speck 2 px below A (x 4…5, rows 14…15), under the minimum area.
        let width = 64, height = 16
        func inside(_ x: Int, _ y: Int) -> Bool {
            ((2 ... 21).contains(x) || (24 ... 31).contains(x)) && (4 ... 11).contains(y) || ((4 ... 5).contains(x) && (14 ... 15).contains(y))
        }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var map = [Float](repeating: 0, count: width * height)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let value: UInt8 = inside(x, y) ? 200 : 60
                pixels[(y * width + x) * 4 ..< (y * width + x) * 4 + 3] = [value, value, value]
                map[y * width + x] = inside(x, y) ? 1 : 0
            }
        }
        let photo = RGBAImage(width: width, height: height, pixels: pixels)
        let probability = FloatMap(width: width, height: height, values: map)
        let all = try Analysis(photo: photo, probability: probability, options: Analysis.Options(refine: false, minimumArea: .pixels(10)))
        #expect(all.subjects.map(\.area) == [160, 64])
        let largest = try Analysis(photo: photo, probability: probability,
                                   options: Analysis.Options(refine: false, minimumArea: .pixels(10), keepLargestOnly: true))
        #expect(largest.subjects.map(\.area) == [160] && largest.labels.count == 1)
        #expect(largest.labels.label(x: 26, y: 6) == 0 && largest.subject(at: PixelPoint(x: 26, y: 6)) == nil)
        // B is gone whole (before, its pixels within reach of A were kept); the speck belongs to A.
        #expect((4 ... 11).allSatisfy { y in (22 ..< width).allSatisfy { largest.alpha.values[y * width + $0] == 0 } })
        #expect(largest.alpha.values[14 * width + 4] == 1 && all.alpha.values[14 * width + 4] == 1)
        #expect(try largest.mask(for: largest.subjects) == largest.alpha)
    }

    @Test func resultDoesNotDependOnThreads() throws {
        let one = try Self.analysis(Analysis.Options(minimumArea: .pixels(50), threads: 1))
        let two = try Self.analysis(Analysis.Options(minimumArea: .pixels(50), threads: 2))
        #expect(one.alpha == two.alpha && one.labels == two.labels && one.subjects == two.subjects)
        #expect(try one.image(for: one.subjects, background: .white) == two.image(for: two.subjects, background: .white))
    }

    @Test func brokenProbabilityMapDoesNotCrash() throws {
        var map = Self.scene.1
        for i in stride(from: 0, to: map.values.count, by: 7) { map.values[i] = .nan }
        map.values[3] = .infinity
        for refine in [true, false] {
            let analysis = try Analysis(photo: Self.scene.0, probability: map, options: Analysis.Options(refine: refine))
            #expect(analysis.alpha.values.allSatisfy { $0 >= 0 && $0 <= 1 })
            let image = try analysis.image(for: analysis.subjects, background: .transparent)
            #expect(image.width == Self.width)
        }
    }

    @Test func backgroundParsing() throws {
        #expect(try Background(parsing: "transparent") == .transparent)
        #expect(try Background(parsing: "white") == .white)
        #expect(try Background(parsing: "#11223344") == .color(RGBAColor(r: 0x11, g: 0x22, b: 0x33, a: 0x44)))
        #expect(try Background(parsing: "blur") == .blurred(radius: nil))
        #expect(try Background(parsing: "blur:25") == .blurred(radius: 25))
        #expect(try Background(parsing: "dim") == .dimmed(brightness: 0.35))
        #expect(try Background(parsing: "dim:0.5") == .dimmed(brightness: 0.5))
        for bad in ["blur:0", "blur:x", "dim:2", "sparkles", "transparent:1"] {
            #expect(throws: MaskError.invalidBackground(bad)) { try Background(parsing: bad) }
        }
        #expect(throws: MaskError.invalidColor("#12")) { try Background(parsing: "#12") }
    }
}
