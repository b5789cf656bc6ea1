/// The picture an animation builds up: RGBA words (R in the low byte), row-major, which frames draw
/// on and dispose of.
struct GIFCanvas {
    let width: Int
    let height: Int
    private var words: [UInt32]

    /// A canvas filled with `background` (an RGBA word).
    init(width: Int, height: Int, background: UInt32) {
        self.width = width
        self.height = height
        words = [UInt32](repeating: background, count: width * height)
    }

    /// The frame's area clipped to the canvas: x and y ranges.
    private func area(of frame: GIFFrame) -> (x: Range<Int>, y: Range<Int>) {
        let x0 = min(frame.left, width), y0 = min(frame.top, height)
        return (x0 ..< min(frame.left + frame.width, width), y0 ..< min(frame.top + frame.height, height))
    }

    /// Draws `count` indices at canvas row `y` from column `left`: each index that is not
    /// `transparentIndex` becomes its palette colour; parts off the canvas are dropped.
    mutating func drawRow(_ y: Int, left: Int, indices: UnsafePointer<UInt8>, count: Int, palette: GIFPalette, transparentIndex: Int?) {
        guard y < height, left < width else { return }
        let visible = min(count, width - left), transparent = transparentIndex ?? -1
        palette.colors.withUnsafeBufferPointer { colors in
            words.withUnsafeMutableBufferPointer { words in
                let row = words.baseAddress.unsafelyUnwrapped + y * width + left
                for x in 0 ..< visible {
                    let index = Int(indices[x])
                    if index != transparent { row[x] = colors[index] }
                }
            }
        }
    }

    /// The pixels under `frame`'s area, for disposal 3.
    func copy(of frame: GIFFrame) -> [UInt32] {
        let (xs, ys) = area(of: frame)
        var saved: [UInt32] = []
        saved.reserveCapacity(xs.count * ys.count)
        for y in ys { saved += words[y * width + xs.lowerBound ..< y * width + xs.upperBound] }
        return saved
    }

    /// Puts back what `copy(of:)` saved.
    mutating func restore(_ saved: [UInt32], of frame: GIFFrame) {
        let (xs, ys) = area(of: frame)
        for (i, y) in ys.enumerated() {
            words.replaceSubrange(y * width + xs.lowerBound ..< y * width + xs.upperBound, with: saved[i * xs.count ..< (i + 1) * xs.count])
        }
    }

    /// Clears `frame`'s area to transparent black (disposal 2).
    mutating func clear(_ frame: GIFFrame) {
        let (xs, ys) = area(of: frame)
        for y in ys {
            for x in xs { words[y * width + x] = 0 }
        }
    }

    /// The canvas as an RGBA8 image.
    var image: RGBAImage {
        let bytes = words.withUnsafeBytes { [UInt8]($0) }
        return RGBAImage(width: width, height: height, pixels: bytes)
    }
}
