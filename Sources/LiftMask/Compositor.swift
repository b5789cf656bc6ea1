import LiftImage
import LiftTensor

/// Puts a lifted subject on a background inside a frame.
public enum Compositor {
    /// Composites the photo's subject (its soft `alpha`) over `background`, for the pixels of `frame`.
    ///
    /// Per pixel, with α = alpha × photo alpha / 255 and F the (decontaminated) photo colour:
    /// transparent: `(F, α)`; colour C with opacity c: alpha `α + c(1-α)`, colour
    /// `(αF + c(1-α)C) / (α + c(1-α))`; blurred or dimmed photo B (opaque): `αF + (1-α)B`. Channels are
    /// rounded to the nearest 8-bit value. Frame pixels outside the photo have α = 0; for photo
    /// backgrounds they repeat the nearest edge pixel.
    /// - Parameters:
    ///   - photo: the photo, straight alpha.
    ///   - alpha: soft alpha at photo size, 0…1.
    ///   - background: what shows where the subject is not.
    ///   - frame: output rectangle in photo coordinates (may reach past the photo).
    ///   - decontaminate: replace edge colours by their estimated foreground colour.
    /// - Throws: `MaskError.tooLarge` when the frame has more pixels than `DecodingLimits.default.maxPixels`.
    public static func compose(photo: RGBAImage, alpha: FloatMap, background: Background, frame: PixelBox,
                               decontaminate: Bool, threads: Int = Parallel.defaultThreads) throws -> RGBAImage {
        precondition(photo.width == alpha.width && photo.height == alpha.height, "alpha must match the photo")
        let limit = DecodingLimits.default.maxPixels
        let (area, overflow) = frame.width.multipliedReportingOverflow(by: frame.height)
        guard !overflow, area <= limit else {
            throw MaskError.tooLarge(what: "output canvas", width: frame.width, height: frame.height, limit: limit)
        }
        guard !frame.isEmpty else { throw MaskError.emptyInput(what: "output canvas", width: frame.width, height: frame.height) }
        let source = decontaminate ? ForegroundEstimation.decontaminated(photo, alpha: alpha, threads: threads) : photo
        let backdrop = try Backdrop(background, photo: photo, alpha: alpha, threads: threads)
        let width = photo.width, height = photo.height
        var output = [UInt8](repeating: 0, count: area * 4)
        source.pixels.withUnsafeBufferPointer { src in
            alpha.values.withUnsafeBufferPointer { a in
                output.withUnsafeMutableBufferPointer { out in
                    nonisolated(unsafe) let out = out
                    Parallel.forEach(count: frame.height, threads: threads, minimumPerPart: 16) { rows in
                        for fy in rows {
                            let y = frame.y + fy
                            for fx in 0 ..< frame.width {
                                let x = frame.x + fx
                                var foreground = SIMD4<Float>()
                                var coverage: Float = 0
                                if x >= 0, y >= 0, x < width, y < height {
                                    let i = y &* width &+ x
                                    foreground = SIMD4(Float(src[i &* 4]), Float(src[i &* 4 &+ 1]), Float(src[i &* 4 &+ 2]), 0)
                                    coverage = a[i] * Float(src[i &* 4 &+ 3]) * (1 / 255)
                                }
                                let pixel = backdrop.blend(foreground: foreground, alpha: coverage,
                                                           x: min(max(x, 0), width - 1), y: min(max(y, 0), height - 1))
                                let o = (fy &* frame.width &+ fx) &* 4
                                out[o] = UInt8(pixel[0].rounded())
                                out[o &+ 1] = UInt8(pixel[1].rounded())
                                out[o &+ 2] = UInt8(pixel[2].rounded())
                                out[o &+ 3] = UInt8(pixel[3].rounded())
                            }
                        }
                    }
                }
            }
        }
        return RGBAImage(width: frame.width, height: frame.height, pixels: output)
    }
}

/// A background ready to blend: a colour, or a per-pixel photo-derived image.
private struct Backdrop {
    private enum Kind {
        case transparent
        case color(SIMD4<Float>, opacity: Float)
        case dimmed(RGBAImage, brightness: Float)
        case blurred([Float], WorkingResolution)
    }
    private let kind: Kind

    init(_ background: Background, photo: RGBAImage, alpha: FloatMap, threads: Int) throws {
        switch background {
        case .transparent:
            kind = .transparent
        case let .color(c):
            kind = .color(SIMD4(Float(c.r), Float(c.g), Float(c.b), 0), opacity: Float(c.a) / 255)
        case let .dimmed(brightness):
            guard brightness >= 0, brightness <= 1 else {
                throw MaskError.invalidParameter(name: "dim brightness", value: "\(brightness)", expected: "0…1")
            }
            kind = .dimmed(photo, brightness: brightness)
        case let .blurred(radius):
            let r = radius ?? max(2, max(photo.width, photo.height) / 50)
            guard r >= 1 else { throw MaskError.invalidParameter(name: "blur radius", value: "\(r)", expected: "≥ 1") }
            let (planes, grid) = BackgroundBlur.blurred(photo, excluding: alpha, radius: r, threads: threads)
            kind = .blurred(planes, grid)
        }
    }

    /// The composite pixel (0…255 floats, RGBA) of `foreground` with coverage `alpha` at photo pixel (x, y).
    @inline(__always)
    func blend(foreground: SIMD4<Float>, alpha: Float, x: Int, y: Int) -> SIMD4<Float> {
        switch kind {
        case .transparent:
            var out = foreground
            out[3] = alpha * 255
            return out
        case let .color(color, opacity):
            let outAlpha = alpha + opacity * (1 - alpha)
            guard outAlpha > 0 else { return SIMD4() }
            var out = (alpha * foreground + (opacity * (1 - alpha)) * color) / outAlpha
            out[3] = outAlpha * 255
            return out
        case let .dimmed(photo, brightness):
            let i = (y &* photo.width &+ x) &* 4
            let back = photo.pixels.withUnsafeBufferPointer { p in
                SIMD4(Float(p[i]), Float(p[i &+ 1]), Float(p[i &+ 2]), 0) * brightness
            }
            var out = alpha * foreground + (1 - alpha) * back
            out[3] = 255
            return out
        case let .blurred(planes, grid):
            let back = planes.withUnsafeBufferPointer { grid.sample3($0.baseAddress!, x: x, y: y) }
            var out = alpha * foreground + (1 - alpha) * back
            out[3] = 255
            return out
        }
    }
}
