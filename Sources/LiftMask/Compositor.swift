import LiftImage
import LiftTensor

/// Puts a lifted subject on a background inside a frame.
public enum Compositor {
    /// Composites the photo's subject (its soft `alpha`) over `background`, for the pixels of `frame`.
    ///
    /// Per pixel, with α = alpha × photo alpha / 255 and F the photo colour, the
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
    ///   - decontaminate: give partly transparent pixels (8-bit alpha 1…254) their estimated
    ///     foreground colour (`ForegroundEstimation`) instead of the photo's.
    /// - Throws: `MaskError.tooLarge` when the frame has more pixels than `DecodingLimits.default.maxPixels`,
    ///   `.emptyInput` for an empty frame or photo.
    public static func compose(photo: RGBAImage, alpha: FloatMap, background: Background, frame: PixelBox,
                               decontaminate: Bool, threads: Int = Parallel.defaultThreads) throws -> RGBAImage {
        try CompositeRows(photo: photo, alpha: alpha, background: background, frame: frame, decontaminate: decontaminate,
                          threads: threads).image(threads: threads)
    }
}

/// A composite made one output row at a time, in any order and from any thread: `Compositor.compose`
/// renders every row into an image, and an encoder can render rows as it needs them, so the
/// composite never exists whole (`ImageFiles.encodePNG(_ rows:)`). The blend is the one `compose` documents.
public struct CompositeRows: RGBARows, @unchecked Sendable {
    // @unchecked: every stored value is read-only after init (the colour means are a final class
    // written once in its init).
    /// The output rectangle in photo coordinates; row `fy` of the output is photo row `frame.y + fy`.
    public let frame: PixelBox
    /// Every output pixel has alpha 255 (an opaque background).
    public var isOpaque: Bool { backdrop.opacity == .opaque }
    /// The output's size: the frame's.
    public var width: Int { frame.width }
    public var height: Int { frame.height }
    private let photo: RGBAImage
    private let alpha: MapRows
    private let backdrop: Backdrop
    /// The local colour means when edge colours are decontaminated.
    private let colors: LocalColorMeans?

    /// Prepares the composite (`Compositor.compose`'s parameters and errors): the backdrop and, with
    /// `decontaminate`, the local colour means are computed here, once.
    public init(photo: RGBAImage, alpha: FloatMap, background: Background, frame: PixelBox, decontaminate: Bool,
                threads: Int = Parallel.defaultThreads) throws {
        try self.init(photo: photo, alpha: MapRows(alpha), background: background, frame: frame, decontaminate: decontaminate,
                      threads: threads)
    }

    /// `init(photo:alpha:…)` with the alpha read row by row (an analysis's refined alpha need not be stored).
    package init(photo: RGBAImage, alpha: MapRows, background: Background, frame: PixelBox, decontaminate: Bool,
                 threads: Int = Parallel.defaultThreads) throws {
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
        self.frame = frame
        self.photo = photo
        self.alpha = alpha
        colors = decontaminate ? LocalColorMeans(photo: photo, alpha: alpha, threads: threads) : nil
        backdrop = try Backdrop(background, photo: photo, alpha: alpha, threads: threads)
    }

    /// Bytes of scratch `render` needs (allocate them 16-byte aligned, one per thread).
    public var scratchBytes: Int { backdropBytes + alpha.scratchBytes }

    /// The backdrop row's bytes at the start of the scratch.
    private var backdropBytes: Int { frame.width * MemoryLayout<SIMD4<Float>>.stride }

    /// Writes output row `fy` (0 ..< `frame.height`) as RGBA8 to `out` (`frame.width * 4` bytes), using
    /// `scratch` (`scratchBytes`, 16-byte aligned).
    public func render(row fy: Int, into out: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutableRawPointer) {
        let width = photo.width, height = photo.height
        let y = frame.y + fy
        let back = scratch.assumingMemoryBound(to: SIMD4<Float>.self)
        backdrop.fill(back, y: min(max(y, 0), height - 1), x: frame.x, count: frame.width, photoWidth: width)
        let opacity = backdrop.opacity
        alpha.withRowReader { read in
            // Rows above or below the photo (a margin, a square canvas) show no subject.
            let a: UnsafePointer<Float>? = y >= 0 && y < height ? read(y, scratch + backdropBytes) : nil
            photo.pixels.withUnsafeBufferPointer { src in
                let row = src.nonEmptyBase + (a == nil ? 0 : y &* width &* 4)
                for fx in 0 ..< frame.width {
                    let x = frame.x &+ fx
                    var foreground = SIMD4<Float>()
                    var coverage: Float = 0
                    if let a, x >= 0, x < width {
                        // Snapped to the 8-bit alpha the mask file shows: 255 is the subject itself and
                        // keeps the photo's colour exactly, 0 shows nothing (NaN counts as 0).
                        let soft = a[x]
                        let value: Float = ForegroundEstimation.isPartlyTransparent(soft) ? soft : (soft > 0.5 ? 1 : 0)
                        let s = row + x &* 4
                        if opacity == .transparent && (value == 0 || (value == 1 && s[3] == 255)) {
                            // Most pixels of a cut-out: what the blend below gives exactly, without it.
                            let o = out + fx &* 4
                            if value == 0 {
                                o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0
                            } else {
                                o[0] = s[0]; o[1] = s[1]; o[2] = s[2]; o[3] = 255
                            }
                            continue
                        }
                        var p = SIMD4<UInt8>(s[0], s[1], s[2], s[3])
                        if let colors, value > 0, value < 1 { p = colors.decontaminated(p, alpha: value, x: x, y: y) }
                        foreground = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 0)
                        coverage = value * Float(p[3]) * (1 / 255)
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
                    // An alpha that rounds to 0 keeps no colour either (see `Compositor.compose`).
                    if pixel[3] == 0 { pixel = SIMD4() }
                    let o = out + fx &* 4
                    o[0] = UInt8(pixel[0]); o[1] = UInt8(pixel[1]); o[2] = UInt8(pixel[2]); o[3] = UInt8(pixel[3])
                }
            }
        }
    }
}
