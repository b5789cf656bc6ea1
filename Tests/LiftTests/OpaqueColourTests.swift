import Lift
import Testing

/// A cut-out is the photo's own pixels: every output pixel the subject covers fully (8-bit alpha 255)
/// keeps the photo's colour bit for bit, in every background, crop, square canvas and size cap; only
/// partly transparent edge pixels may get an estimated foreground colour.
@Suite struct OpaqueColourTests {
    static let width = 240, height = 180
    static let sky: (UInt8, UInt8, UInt8) = (70, 130, 220)

    /// A subject that wears the background's colours: a disc (radius 60 at (110, 90)) striped with the
    /// sky's own blue and a grass green, on that blue sky; the probability map is the disc's coverage
    /// of 8×8 blocks, so the upsampled, refined alpha keeps some sky at full opacity along the outline
    /// (where a repainting decontamination would change opaque pixels).
    static let scene: (RGBAImage, FloatMap) = {
        func inside(_ x: Int, _ y: Int) -> Bool {
            let dx = Double(x) + 0.5 - 110, dy = Double(y) + 0.5 - 90
            return dx * dx + dy * dy <= 3600
        }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let i = (y * width + x) * 4
                let color = !inside(x, y) || (x / 9) % 3 == 0 ? sky : (x / 9) % 3 == 1 ? (40, 150, 50) : (230, 200, 170)
                (pixels[i], pixels[i + 1], pixels[i + 2]) = color
            }
        }
        var map = [Float](repeating: 0, count: 30 * 23)
        for y in 0 ..< height { for x in 0 ..< width where inside(x, y) { map[(y / 8) * 30 + x / 8] += 1 / 64 } }
        return (RGBAImage(width: width, height: height, pixels: pixels), FloatMap(width: 30, height: 23, values: map))
    }()

    static let backgrounds: [Background] = [.transparent, .white, .color(RGBAColor(r: 0, g: 90, b: 200)),
                                            .color(RGBAColor(r: 255, g: 0, b: 0, a: 90)), .blurred(radius: 12),
                                            .dimmed(brightness: 0.3)]

    static func analysis(decontaminate: Bool = true) throws -> Analysis {
        try Analysis(photo: scene.0, probability: scene.1, options: Analysis.Options(decontaminate: decontaminate, threads: 2))
    }

    /// The frame `image(for:croppedToExtent:layout:)` uses, as the public stages compute it.
    static func frame(_ analysis: Analysis, crop: Bool, layout: OutputLayout) throws -> PixelBox {
        var frame = PixelBox(x: 0, y: 0, width: width, height: height)
        if crop, let extent = analysis.extent(of: analysis.subjects) {
            let alpha = try analysis.mask(for: analysis.subjects)
            frame = Framing.crop(extent: Framing.visibleExtent(of: alpha).map { $0.union(extent) } ?? extent, margin: layout.margin)
        }
        return layout.square ? Framing.square(frame) : frame
    }

    @Test(arguments: [(false, false), (true, false), (true, true), (false, true)])
    func opaquePixelsAreThePhotosInEveryBackground(crop: Bool, square: Bool) throws {
        let analysis = try Self.analysis()
        let (photo, _) = Self.scene
        let layout = OutputLayout(margin: .pixels(7), square: square)
        let frame = try Self.frame(analysis, crop: crop, layout: layout)
        let mask = try analysis.maskImage(for: analysis.subjects)
        for background in Self.backgrounds {
            let out = try analysis.image(for: analysis.subjects, croppedToExtent: crop, background: background, layout: layout)
            #expect(out.width == frame.width && out.height == frame.height)
            var opaque = 0, repainted = 0
            for fy in 0 ..< frame.height {
                for fx in 0 ..< frame.width {
                    let x = frame.x + fx, y = frame.y + fy
                    guard x >= 0, x < Self.width, y >= 0, y < Self.height, mask.pixels[y * Self.width + x] == 255 else { continue }
                    opaque += 1
                    let o = (fy * frame.width + fx) * 4, p = (y * Self.width + x) * 4
                    if out.pixels[o ..< o + 4] != photo.pixels[p ..< p + 4] { repainted += 1 }
                }
            }
            #expect(opaque > 9000, "\(background)")
            #expect(repainted == 0, "\(background) crop \(crop) square \(square): \(repainted) of \(opaque) opaque pixels repainted")
        }
    }

    @Test(arguments: [40, 97, 120])
    func aSizeCapKeepsTheAreaAverageOfThePhoto(maxSize: Int) throws {
        let analysis = try Self.analysis()
        let (photo, _) = Self.scene
        for crop in [false, true] {
            let layout = OutputLayout(margin: .pixels(3), square: crop, maxLongSide: maxSize)
            let frame = try Self.frame(analysis, crop: crop, layout: layout)
            // Where the subject covers every photo pixel under an output pixel, the shrunk cut-out's alpha
            // is 255; the photo alone, framed the same way and shrunk, is the truth there.
            let full = OutputLayout(margin: layout.margin, square: layout.square)
            let cutout = try analysis.image(for: analysis.subjects, croppedToExtent: crop, background: .transparent, layout: full)
            let photoInFrame = try Compositor.compose(photo: photo, alpha: FloatMap(width: Self.width, height: Self.height, value: 1),
                                                      background: .transparent, frame: frame, decontaminate: false)
            let size = try #require(AreaDownscale.fittedSize(width: frame.width, height: frame.height, maxLongSide: maxSize))
            let covered = AreaDownscale.resize(cutout, width: size.width, height: size.height)
            let truth = AreaDownscale.resize(photoInFrame, width: size.width, height: size.height)
            for background in Self.backgrounds {
                let out = try analysis.image(for: analysis.subjects, croppedToExtent: crop, background: background, layout: layout)
                #expect(out.width == size.width && out.height == size.height)
                var opaque = 0, differing = 0
                for i in 0 ..< out.pixelCount where covered.pixels[i * 4 + 3] == 255 {
                    opaque += 1
                    if out.pixels[i * 4 ..< i * 4 + 4] != truth.pixels[i * 4 ..< i * 4 + 4] { differing += 1 }
                }
                #expect(opaque > out.pixelCount / 8, "\(background) \(maxSize)")
                #expect(differing == 0, "\(background) max \(maxSize) crop \(crop): \(differing) of \(opaque)")
            }
        }
    }

    @Test func decontaminationChangesOnlyPartlyTransparentPixels() throws {
        let on = try Self.analysis(decontaminate: true), off = try Self.analysis(decontaminate: false)
        let a = try on.image(for: on.subjects), b = try off.image(for: off.subjects)
        var changed = 0
        for i in 0 ..< a.pixelCount where a.pixels[i * 4 ..< i * 4 + 4] != b.pixels[i * 4 ..< i * 4 + 4] {
            changed += 1
            #expect(a.pixels[i * 4 + 3] > 0 && a.pixels[i * 4 + 3] < 255, "pixel \(i % Self.width), \(i / Self.width)")
        }
        // The edge exists and decontamination works on it.
        #expect(changed > 100)
    }
}
