/// The EXIF orientation (TIFF tag 0x0112): how the stored pixels must be transformed to show the
/// picture upright. Raw values 1…8 as in the TIFF/EXIF specification.
public enum EXIFOrientation: Int, Sendable, Equatable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left-right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top-bottom.
    case downMirrored = 4
    /// 5: transposed (mirrored across the top-left/bottom-right diagonal).
    case leftMirrored = 5
    /// 6: needs a 90° clockwise rotation to be upright.
    case right = 6
    /// 7: transversed (mirrored across the top-right/bottom-left diagonal).
    case rightMirrored = 7
    /// 8: needs a 90° counter-clockwise rotation to be upright.
    case left = 8

    /// Reads the orientation from an EXIF payload (the TIFF structure after `Exif\0\0`, both byte
    /// orders). Every offset is bounds-checked; anything missing, malformed or out of range gives `.up`.
    public init(exif: [UInt8]) {
        self = Self.parse(exif) ?? .up
    }

    private static func parse(_ b: [UInt8]) -> EXIFOrientation? {
        guard b.count >= 8 else { return nil }
        let little: Bool
        switch (b[0], b[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ p: Int) -> Int? {
            guard p >= 0, p + 2 <= b.count else { return nil }
            return little ? Int(b[p]) | Int(b[p + 1]) << 8 : Int(b[p]) << 8 | Int(b[p + 1])
        }
        func u32(_ p: Int) -> Int? {
            guard let lo = u16(little ? p : p + 2), let hi = u16(little ? p + 2 : p) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for i in 0 ..< count {
            let entry = ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // Type SHORT (3), count 1: the value sits in the first two bytes of the value field.
            guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }
            return EXIFOrientation(rawValue: value)
        }
        return nil
    }

    /// True when applying the orientation swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The image made upright: `image` transformed as this orientation prescribes (as Pillow's
    /// `ImageOps.exif_transpose`). Returns `image` unchanged for `.up`.
    public func apply(to image: RGBAImage) -> RGBAImage {
        if self == .up { return image }
        let w = image.width, h = image.height
        let outW = swapsDimensions ? h : w, outH = swapsDimensions ? w : h
        guard w > 0, h > 0 else { return RGBAImage(width: outW, height: outH, pixels: []) }
        var out = [UInt8](repeating: 0, count: w * h * 4)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                let s = UnsafeRawPointer(src.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: UInt32.self)
                let d = UnsafeMutableRawPointer(dst.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: UInt32.self)
                for y in 0 ..< outH {
                    for x in 0 ..< outW {
                        let (sx, sy) = sourceOf(x: x, y: y, width: w, height: h)
                        d[y &* outW &+ x] = s[sy &* w &+ sx]
                    }
                }
            }
        }
        return RGBAImage(width: outW, height: outH, pixels: out)
    }

    /// The stored pixel shown at upright position (`x`, `y`), for a stored image `width x height`.
    @inline(__always)
    private func sourceOf(x: Int, y: Int, width: Int, height: Int) -> (Int, Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (width - 1 - x, y)
        case .down: return (width - 1 - x, height - 1 - y)
        case .downMirrored: return (x, height - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, height - 1 - x)
        case .rightMirrored: return (width - 1 - y, height - 1 - x)
        case .left: return (width - 1 - y, x)
        }
    }
}
