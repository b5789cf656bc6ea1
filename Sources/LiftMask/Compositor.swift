import LiftImage
import LiftTensor

/// Puts a lifted subject on a background inside a frame.
public enum Compositor {
    /// Composites the photo's subject (its soft `alpha`) over `background`, for the pixels of `frame`.
    ///
    /// Per pixel, with α = alpha × photo alpha / 255 and F the (decontaminated) photo colour, the
    /// straight-alpha "over" of F on the background colour C with opacity c: alpha `α + c(1-α)`,
    /// colour `(αF + c(1-α)C) / (α + c(1-α))`. So transparent (c = 0) gives `(F, α)` (and colour 0
    /// where the 8-bit alpha is 0, so a cut-out keeps nothing of the hidden photo); the blurred or dimmed photo
    /// (c = 1 for an opaque photo, else its own alpha, blurred with it) gives `αF + (1-α)B`. Channels are rounded to the nearest 8-bit value. Frame pixels outside the photo have α = 0; for photo
    /// backgrounds they repeat the nearest edge pixel.
    /// - Parameters:
    ///   - photo: the photo, straight alpha.
    ///   - alpha: soft alpha at photo size, 0…1.
    ///   - background: what shows where the subject is not.
    ///   - frame: output rectangle in photo coordinates (may reach past the photo).
    ///   - decontaminate: replace edge colours by their estimated foreground colour.
    /// - Throws: `MaskError.tooLarge` when the frame has more pixels than `DecodingLimits.default.maxPixels`,
    ///   `.emptyInput` for an empty frame or photo.
    public static func compose(photo: RGBAImage, alpha: FloatMap, background: Background, frame: PixelBox,
                               decontaminate: Bool, threads: Int = Parallel.defaultThreads) throws -> RGBAImage {
        precondition(photo.width == alpha.width && photo.height == alpha.height, "alpha must match the photo")
        let limit = DecodingLimits.default.maxPixels
        let (area, overflow) = frame.width.multipliedReportingOverflow(by: frame.height)
        guard !overflow, area <= limit else {
            throw MaskError.tooLarge(what: "output canvas", width: frame.width, height: frame.height, limit: limit)
        }
        guard !frame.isEmpty else { throw MaskError.emptyInput(what: "output canvas", width: frame.width, height: frame.height) }
        guard photo.width > 0, photo.height > 0 else {
            throw MaskError.emptyInput(what: "photo", width: photo.width, height: photo.height)
        }
        let source = decontaminate ? ForegroundEstimation.decontaminated(photo, alpha: alpha, threads: threads) : photo
        let backdrop = try Backdrop(background, photo: photo, alpha: alpha, threads: threads)
        let width = photo.width, height = photo.height
        let opacity = backdrop.opacity
        let output = source.pixels.withUnsafeBufferPointer { src in
            alpha.values.withUnsafeBufferPointer { a in
                [UInt8](unsafeUninitializedCapacity: area * 4) { out, initialized in
                    nonisolated(unsafe) let out = out
                    Parallel.forEach(count: frame.height, threads: threads, minimumPerPart: 16) { rows in
                        let back = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: frame.width)
                        defer { back.deallocate() }
                        for fy in rows {
                            let y = frame.y + fy
                            backdrop.fill(back, y: min(max(y, 0), height - 1), x: frame.x, count: frame.width, photoWidth: width)
                            let row = out.nonEmptyBase + fy &* frame.width &* 4
                            for fx in 0 ..< frame.width {
                                let x = frame.x &+ fx
                                var foreground = SIMD4<Float>()
                                var coverage: Float = 0
                                if x >= 0, y >= 0, x < width, y < height {
                                    let i = y &* width &+ x
                                    let p = src.nonEmptyBase + i &* 4
                                    foreground = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 0)
                                    let value = a[i]  // clamped so any map (even NaN) gives a valid pixel
                                    coverage = (value > 0 ? min(value, 1) : 0) * Float(p[3]) * (1 / 255)
                                }
                                var pixel: SIMD4<Float>
                                switch opacity {
                                case .transparent:
                                    pixel = coverage > 0 ? foreground : SIMD4()
                                    pixel[3] = coverage * 255
                                case .opaque:
                                    let color = back[fx]
                                    pixel = color + coverage * (foreground - color)
                                    pixel[3] = 255
                                case .mixed:
                                    // Straight-alpha "over": alpha α + o(1-α), colour (αF + o(1-α)C) / alpha.
                                    let color = back[fx], weight = color[3] * (1 - coverage)
                                    let outAlpha = coverage + weight
                                    pixel = outAlpha > 0 ? (coverage * foreground + weight * color) / outAlpha : SIMD4()
                                    pixel[3] = outAlpha * 255
                                }
                                // Clamped (NaN to 0) so no blend can trap the byte conversions below.
                                pixel = pixel.replacing(with: 0, where: .!(pixel .> 0))
                                pixel = pointwiseMin(pixel, SIMD4(repeating: 255)).rounded(.toNearestOrAwayFromZero)
                                // An alpha that rounds to 0 keeps no colour either (see the doc above).
                                if pixel[3] == 0 { pixel = SIMD4() }
                                let o = row + fx &* 4
                                o[0] = UInt8(pixel[0]); o[1] = UInt8(pixel[1]); o[2] = UInt8(pixel[2]); o[3] = UInt8(pixel[3])
                            }
                        }
                    }
                    initialized = area * 4
                }
            }
        }
        return RGBAImage(width: frame.width, height: frame.height, pixels: output)
    }
}

/// A background ready to blend: per row, each pixel's colour (0…255) and opacity (0…1, in lane 3).
private struct Backdrop: @unchecked Sendable {
    // @unchecked: read-only after init; the arrays inside are immutable values.
    private enum Kind {
        case color(SIMD4<Float>)
        /// The photo dimmed; its own alpha is the backdrop's opacity unless it is `opaque`.
        case dimmed(RGBAImage, brightness: Float, opaque: Bool)
        /// R, G, B and opacity planes on the grid (`BackgroundBlur`).
        case blurred([Float], WorkingResolution, opaque: Bool)
    }
    private let kind: Kind

    /// How opaque the whole backdrop is; lets the blend skip the division of the general "over".
    enum Opacity { case transparent, opaque, mixed }

    /// The backdrop's opacity class.
    var opacity: Opacity {
        switch kind {
        case let .color(color): return color[3] == 0 ? .transparent : color[3] == 1 ? .opaque : .mixed
        case let .dimmed(_, _, opaque), let .blurred(_, _, opaque): return opaque ? .opaque : .mixed
        }
    }

    init(_ background: Background, photo: RGBAImage, alpha: FloatMap, threads: Int) throws {
        switch background {
        case .transparent:
            kind = .color(SIMD4())
        case let .color(c):
            kind = .color(SIMD4(Float(c.r), Float(c.g), Float(c.b), Float(c.a) / 255))
        case let .dimmed(brightness):
            guard brightness >= 0, brightness <= 1 else {
                throw MaskError.invalidParameter(name: "dim brightness", value: "\(brightness)", expected: "0…1")
            }
            kind = .dimmed(photo, brightness: brightness, opaque: photo.isOpaque)
        case let .blurred(radius):
            let r = radius ?? max(2, max(photo.width, photo.height) / 50)
            guard r >= 1 else { throw MaskError.invalidParameter(name: "blur radius", value: "\(r)", expected: "≥ 1") }
            let opaque = photo.isOpaque
            let (planes, grid) = BackgroundBlur.blurred(photo, excluding: alpha, radius: r, opaque: opaque, threads: threads)
            kind = .blurred(planes, grid, opaque: opaque)
        }
    }

    /// Writes the background of photo row `y`, columns `x ..< x + count` (clamped to the photo), into `row`.
    func fill(_ row: UnsafeMutablePointer<SIMD4<Float>>, y: Int, x: Int, count: Int, photoWidth: Int) {
        switch kind {
        case let .color(color):
            row.initialize(repeating: color, count: count)
        case let .dimmed(photo, brightness, _):
            photo.pixels.withUnsafeBufferPointer { p in
                for i in 0 ..< count {
                    let o = (y &* photoWidth &+ min(max(x &+ i, 0), photoWidth - 1)) &* 4
                    row[i] = SIMD4(Float(p[o]) * brightness, Float(p[o &+ 1]) * brightness, Float(p[o &+ 2]) * brightness,
                                   Float(p[o &+ 3]) * (1 / 255))
                }
            }
        case let .blurred(planes, grid, opaque):
            planes.withUnsafeBufferPointer { planes in
                for i in 0 ..< count {
                    let sample = grid.sample4(planes.nonEmptyBase, x: min(max(x &+ i, 0), photoWidth - 1), y: y)
                    row[i] = opaque ? sample : BackgroundBlur.straightened(sample)
                }
            }
        }
    }
}
