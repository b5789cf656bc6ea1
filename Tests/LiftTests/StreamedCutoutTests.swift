import Lift
import Testing
import TestSupport

/// A cut-out rendered row by row into the encoder (`Analysis.imageRows` + `ImageFiles.encodePNG(_ rows:)`,
/// what the CLI does) is byte for byte the file of the whole composite (`Analysis.image` + `encodePNG`),
/// and that composite is the one the whole-map stages make from the stored Float alpha.
@Suite struct StreamedCutoutTests {
    /// A photo of textured subjects on a gradient and a blurry low-resolution map of them, at any size.
    static func analysis(width: Int, height: Int, seed: UInt64) throws -> Analysis {
        var generator = SeededGenerator(seed: seed)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let mapWidth = max(1, width / 8), mapHeight = max(1, height / 8)
        var map = [Float](repeating: 0, count: mapWidth * mapHeight)
        func inside(_ x: Int, _ y: Int) -> Bool {
            let dx = Double(x) / Double(width) - 0.4, dy = Double(y) / Double(height) - 0.5
            return dx * dx + dy * dy < 0.06 || (x > width * 3 / 4 && y % 97 < 60)
        }
        for y in 0 ..< height {
            for x in 0 ..< width {
                let i = (y * width + x) * 4, noise = UInt8.random(in: 0 ..< 30, using: &generator)
                let subject = inside(x, y)
                pixels[i] = subject ? 180 + noise : UInt8(x * 200 / max(width, 1))
                pixels[i + 1] = subject ? 40 + noise : 120
                pixels[i + 2] = subject ? 60 : UInt8(y * 200 / max(height, 1))
                if subject { map[min(y / 8, mapHeight - 1) * mapWidth + min(x / 8, mapWidth - 1)] += 1 / 64 }
            }
        }
        let options = Analysis.Options(refineEpsilon: 1e-3, minimumArea: .pixels(4), threads: 2)
        return try Analysis(photo: RGBAImage(width: width, height: height, pixels: pixels),
                            probability: FloatMap(width: mapWidth, height: mapHeight, values: map.map { min($0, 1) }), options: options)
    }

    // 67 px rows are 269 filtered bytes: 974 rows to a 256 KiB segment, so 2100 rows cross two
    // segment edges (each re-renders the rows before it as the compressor's dictionary).
    @Test(arguments: [(1, 1), (17, 5), (33, 70), (67, 2100)])
    func streamedFileEqualsTheWholeImagesFile(width: Int, height: Int) throws {
        let analysis = try Self.analysis(width: width, height: height, seed: UInt64(width * 7 + height))
        let backgrounds: [Background] = [.transparent, .white, .color(RGBAColor(r: 255, g: 0, b: 0, a: 128)),
                                         .blurred(radius: 3), .dimmed(brightness: 0.4)]
        for background in backgrounds {
            for crop in [false, true] where !crop || !analysis.subjects.isEmpty {
                let layout = OutputLayout(margin: .pixels(3), square: crop)
                let whole = try analysis.image(for: analysis.subjects, croppedToExtent: crop, background: background, layout: layout)
                // The same image from the stored Float alpha through the public whole-map stages.
                let alpha = try analysis.mask(for: analysis.subjects)
                var frame = PixelBox(x: 0, y: 0, width: width, height: height)
                if crop, let extent = analysis.extent(of: analysis.subjects) {
                    frame = Framing.square(Framing.crop(extent: Framing.visibleExtent(of: alpha).map { $0.union(extent) } ?? extent,
                                                        margin: layout.margin))
                }
                #expect(whole == (try Compositor.compose(photo: analysis.photo, alpha: alpha, background: background, frame: frame,
                                                         decontaminate: true)), "\(background) crop \(crop)")
                let rows = try analysis.imageRows(for: analysis.subjects, croppedToExtent: crop, background: background, layout: layout)
                #expect(rows.width == whole.width && rows.height == whole.height)
                for (threads, compression) in [(1, PNGCompression.zlib(level: 1)), (2, .zlib(level: 1)), (2, .fast)] {
                    let streamed = try ImageFiles.encodePNG(rows, compression: compression, threads: threads)
                    #expect(streamed == (try ImageFiles.encodePNG(whole, compression: compression, threads: threads)),
                            "\(background) crop \(crop) \(compression)")
                }
            }
        }
    }

    @Test func maskRowsGiveTheMaskImagesFile() throws {
        for (width, height) in [(1, 1), (67, 2100), (130, 70)] {
            let analysis = try Self.analysis(width: width, height: height, seed: 9)
            for subjects in [analysis.subjects, Array(analysis.subjects.prefix(1)), []] {
                let whole = try ImageFiles.encodePNG(try analysis.mask(for: subjects).grayImage(), threads: 1)
                #expect(try ImageFiles.encodeMaskPNG(of: analysis, for: subjects, threads: 2) == whole)
                #expect(try analysis.maskImage(for: subjects) == (try analysis.mask(for: subjects).grayImage()))
            }
        }
    }

    @Test func labelRowsGiveTheLabelMapsFile() throws {
        for (width, height) in [(1, 1), (67, 2100), (130, 70)] {
            let analysis = try Self.analysis(width: width, height: height, seed: 5)
            #expect(try ImageFiles.encodeLabelsPNG(of: analysis, threads: 2) == (try ImageFiles.encodeLabelsPNG(analysis.labels, threads: 1)))
        }
    }

    // A longest-side cap shrinks the composite's rows as they are made: the file of the whole
    // composite shrunk by `AreaDownscale.fit`, for caps that cut rows and columns unevenly.
    @Test(arguments: [(67, 2100, 300), (130, 70, 33), (40, 30, 1), (40, 30, 40)])
    func aCapShrinksTheRowsAsTheyAreMade(width: Int, height: Int, cap: Int) throws {
        let analysis = try Self.analysis(width: width, height: height, seed: 2)
        for background in [Background.transparent, .white, .blurred(radius: 3)] {
            let full = try analysis.image(for: analysis.subjects, background: background)
            let expected = AreaDownscale.fit(full, maxLongSide: cap, threads: 1)
            let rows = try analysis.imageRows(for: analysis.subjects, background: background, layout: OutputLayout(maxLongSide: cap))
            #expect(rows.width == expected.width && rows.height == expected.height)
            #expect(try ImageFiles.encodePNG(rows, threads: 2) == (try ImageFiles.encodePNG(expected, threads: 1)), "\(background)")
        }
    }
}
