/// A lossless transform with its data, and its inverse (RFC 9649 §4). `width` is the width of the
/// image the transform's inverse produces; pixels are ARGB `UInt32`.
enum VP8LTransform {
    /// Each pixel was coded as its difference from a prediction; `modes` holds the mode of each
    /// `1 << bits` square tile in bits 8…11 (green).
    case predictor(bits: Int, modes: [UInt32], width: Int)
    /// Red and blue were decorrelated from green (and blue from red) per tile; `elements` holds each
    /// tile's green-to-red (blue byte), green-to-blue (green byte) and red-to-blue (red byte) multipliers.
    case color(bits: Int, elements: [UInt32], width: Int)
    /// Green was subtracted from red and blue.
    case subtractGreen
    /// Pixels are indices into `palette` (256 entries), `1 << widthBits` indices bundled per coded pixel.
    case colorIndexing(palette: [UInt32], widthBits: Int, width: Int)

    /// `size` divided by `1 << bits`, rounded up: the tile count along one side.
    static func subsampled(_ size: Int, bits: Int) -> Int {
        (size + (1 << bits) - 1) >> bits
    }

    /// Per-byte sum of two ARGB pixels, each channel modulo 256.
    @inline(__always)
    static func addPixels(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let alphaGreen = (a & 0xFF00_FF00) &+ (b & 0xFF00_FF00)
        let redBlue = (a & 0x00FF_00FF) &+ (b & 0x00FF_00FF)
        return alphaGreen & 0xFF00_FF00 | redBlue & 0x00FF_00FF
    }

    /// Undoes the transform on `pixels` (`height` rows as coded), replacing them with the rows it
    /// produces (wider ones for bundled colour indices).
    func applyInverse(to pixels: inout [UInt32], height: Int) {
        switch self {
        case .predictor(let bits, let modes, let width):
            VP8LPredictor.applyInverse(to: &pixels, width: width, height: height, bits: bits, modes: modes)
        case .color(let bits, let elements, let width):
            Self.inverseColor(&pixels, width: width, bits: bits, elements: elements)
        case .subtractGreen:
            Self.addGreen(&pixels)
        case .colorIndexing(let palette, let widthBits, let width):
            pixels = Self.expandIndices(pixels, width: width, height: height, widthBits: widthBits, palette: palette)
        }
    }

    /// Adds green back to red and blue.
    private static func addGreen(_ pixels: inout [UInt32]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            for i in buffer.indices {
                let pixel = buffer[i]
                let green = (pixel >> 8) & 0xFF
                let redBlue = ((pixel & 0x00FF_00FF) &+ (green << 16 | green)) & 0x00FF_00FF
                buffer[i] = pixel & 0xFF00_FF00 | redBlue
            }
        }
    }

    /// The colour transform delta: two signed bytes multiplied, in 3.5 fixed point.
    @inline(__always)
    private static func delta(_ multiplier: Int8, _ channel: UInt32) -> Int32 {
        (Int32(multiplier) &* Int32(Int8(truncatingIfNeeded: channel))) >> 5
    }

    /// Adds back to red `g2r·green` and to blue `g2b·green + r2b·red` (with the restored red), per tile.
    private static func inverseColor(_ pixels: inout [UInt32], width: Int, bits: Int, elements: [UInt32]) {
        let columns = subsampled(width, bits: bits)
        pixels.withUnsafeMutableBufferPointer { buffer in
            var i = 0
            var y = 0
            while i < buffer.count {
                let rowTiles = (y >> bits) * columns
                for x in 0 ..< width {
                    let element = elements[rowTiles + (x >> bits)]
                    let greenToRed = Int8(truncatingIfNeeded: element)
                    let greenToBlue = Int8(truncatingIfNeeded: element >> 8)
                    let redToBlue = Int8(truncatingIfNeeded: element >> 16)
                    let pixel = buffer[i]
                    let green = pixel >> 8
                    let red = UInt32(truncatingIfNeeded: Int32(pixel >> 16) &+ delta(greenToRed, green)) & 0xFF
                    let blue = UInt32(truncatingIfNeeded: Int32(pixel & 0xFF) &+ delta(greenToBlue, green) &+ delta(redToBlue, red)) & 0xFF
                    buffer[i] = pixel & 0xFF00_FF00 | red << 16 | blue
                    i += 1
                }
                y += 1
            }
        }
    }

    /// Replaces each index (green) by its palette colour, unbundling `1 << widthBits` indices of
    /// `8 >> widthBits` bits each from every coded pixel (lowest bits first).
    private static func expandIndices(_ coded: [UInt32], width: Int, height: Int, widthBits: Int, palette: [UInt32]) -> [UInt32] {
        let codedWidth = subsampled(width, bits: widthBits)
        let bitsPerIndex = 8 >> widthBits, indexMask = (1 << bitsPerIndex) - 1, perPixel = (1 << widthBits) - 1
        var pixels = [UInt32](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            coded.withUnsafeBufferPointer { coded in
                palette.withUnsafeBufferPointer { palette in
                    for y in 0 ..< height {
                        let row = y * codedWidth, outRow = y * width
                        for x in 0 ..< width {
                            let packed = Int((coded[row + (x >> widthBits)] >> 8) & 0xFF)
                            let index = (packed >> ((x & perPixel) * bitsPerIndex)) & indexMask
                            out[outRow + x] = palette[index]
                        }
                    }
                }
            }
        }
        return pixels
    }
}
