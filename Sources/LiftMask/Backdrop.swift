import LiftImage
import LiftTensor

/// A background ready to blend: per row, each pixel's colour (0…255) and opacity (0…1, in lane 3).
struct Backdrop: @unchecked Sendable {
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

    init(_ background: Background, photo: RGBAImage, alpha: MapRows, threads: Int) throws {
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
