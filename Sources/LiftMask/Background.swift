/// An 8-bit straight-alpha colour.
public struct RGBAColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0…255.
    public var r: UInt8
    /// Green, 0…255.
    public var g: UInt8
    /// Blue, 0…255.
    public var b: UInt8
    /// Alpha (opacity), 0…255; 255 is opaque.
    public var a: UInt8

    /// A colour from its four channels (alpha defaults to opaque).
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// Opaque white.
    public static let white = RGBAColor(r: 255, g: 255, b: 255)
    /// Opaque black.
    public static let black = RGBAColor(r: 0, g: 0, b: 0)
    /// Fully transparent black.
    public static let clear = RGBAColor(r: 0, g: 0, b: 0, a: 0)

    /// Parses `#RRGGBB` or `#RRGGBBAA` (hex digits, either case, `#` optional) or one of the names
    /// `white`, `black`, `transparent`/`clear`.
    /// - Throws: `MaskError.invalidColor` for anything else.
    public init(parsing text: String) throws {
        switch text.lowercased() {
        case "white": self = .white; return
        case "black": self = .black; return
        case "transparent", "clear": self = .clear; return
        default: break
        }
        var digits = Substring(text)
        if digits.first == "#" { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit) else {
            throw MaskError.invalidColor(text)
        }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index ..< next], radix: 16) else { throw MaskError.invalidColor(text) }
            bytes.append(byte)
            index = next
        }
        self.init(r: bytes[0], g: bytes[1], b: bytes[2], a: bytes.count == 4 ? bytes[3] : 255)
    }

    /// `#RRGGBB` when opaque, else `#RRGGBBAA` (upper-case hex).
    public var description: String {
        func hex(_ v: UInt8) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + hex(r) + hex(g) + hex(b) + (a == 255 ? "" : hex(a))
    }
}

/// What shows behind a lifted subject.
public enum Background: Sendable, Hashable {
    /// Straight-alpha cut-out: the subject's alpha is the image's alpha.
    case transparent
    /// A flat colour; with alpha below 255 the result is itself partly transparent.
    case color(RGBAColor)
    /// The photo itself, blurred with a Gaussian-like filter (three box passes) of about `radius`
    /// pixels at photo scale; `nil` picks 2 % of the photo's longer side. The subject's own pixels
    /// are left out of the blur so it casts no halo on the background.
    case blurred(radius: Int?)
    /// The photo itself, its brightness multiplied by `brightness` (0 black … 1 unchanged).
    case dimmed(brightness: Float)

    /// Opaque white, the e-commerce background.
    public static let white = Background.color(.white)
}
