/// The lossless predictor transform (RFC 9649 §4.1): the 14 ways of predicting a pixel from its
/// already decoded neighbours L (left), T (top), TL and TR, and the inverse that adds predictions
/// back. Modes 14 and 15, which the format leaves undefined, predict 0xFF000000 as libwebp does.
enum VP8LPredictor {
    /// The prediction of `mode` from the neighbours; every channel is computed separately.
    @inline(__always)
    static func predict(_ mode: Int, left: UInt32, top: UInt32, topLeft: UInt32, topRight: UInt32) -> UInt32 {
        switch mode {
        case 1: return left
        case 2: return top
        case 3: return topRight
        case 4: return topLeft
        case 5: return average(average(left, topRight), top)
        case 6: return average(left, topLeft)
        case 7: return average(left, top)
        case 8: return average(topLeft, top)
        case 9: return average(top, topRight)
        case 10: return average(average(left, topLeft), average(top, topRight))
        case 11: return select(left: left, top: top, topLeft: topLeft)
        case 12: return clampAddSubtractFull(left, top, topLeft)
        case 13: return clampAddSubtractHalf(average(left, top), topLeft)
        default: return 0xFF00_0000
        }
    }

    /// Per-channel `(a + b) / 2`, rounded down.
    @inline(__always)
    static func average(_ a: UInt32, _ b: UInt32) -> UInt32 {
        (((a ^ b) & 0xFEFE_FEFE) >> 1) &+ (a & b)
    }

    /// Channel `shift` of `pixel` as an Int.
    @inline(__always)
    private static func channel(_ pixel: UInt32, _ shift: UInt32) -> Int {
        Int((pixel >> shift) & 0xFF)
    }

    /// Left or top, whichever is closer (Manhattan distance over the four channels) to the gradient
    /// estimate `left + top - topLeft`; top on a tie.
    @inline(__always)
    static func select(left: UInt32, top: UInt32, topLeft: UInt32) -> UInt32 {
        var distanceToLeft = 0, distanceToTop = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let l = channel(left, shift), t = channel(top, shift), tl = channel(topLeft, shift)
            distanceToLeft += abs(t - tl)   // |estimate - left|
            distanceToTop += abs(l - tl)    // |estimate - top|
        }
        return distanceToLeft < distanceToTop ? left : top
    }

    /// Per channel, `a + b - c` clamped to 0…255.
    @inline(__always)
    static func clampAddSubtractFull(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt32 {
        var result: UInt32 = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let value = min(max(channel(a, shift) + channel(b, shift) - channel(c, shift), 0), 255)
            result |= UInt32(value) << shift
        }
        return result
    }

    /// Per channel, `a + (a - b) / 2` (division rounding toward zero) clamped to 0…255.
    @inline(__always)
    static func clampAddSubtractHalf(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var result: UInt32 = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let x = channel(a, shift)
            let value = min(max(x + (x - channel(b, shift)) / 2, 0), 255)
            result |= UInt32(value) << shift
        }
        return result
    }

    /// Adds predictions back to the residuals in `pixels` (`width × height`), in place, row by row:
    /// the first pixel predicts 0xFF000000, the rest of the first row L, the first column T, and
    /// every other pixel its tile's mode (the top-right of the last column is the row's first pixel,
    /// which follows the previous row in memory).
    static func applyInverse(to pixels: inout [UInt32], width: Int, height: Int, bits: Int, modes: [UInt32]) {
        let columns = VP8LTransform.subsampled(width, bits: bits)
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let p = buffer.baseAddress, width > 0, height > 0 else { return }
            p[0] = VP8LTransform.addPixels(p[0], 0xFF00_0000)
            for x in 1 ..< width { p[x] = VP8LTransform.addPixels(p[x], p[x - 1]) }
            for y in 1 ..< height {
                let row = p + y * width
                let above = row - width
                row[0] = VP8LTransform.addPixels(row[0], above[0])
                let tileRow = (y >> bits) * columns
                var x = 1
                while x < width {
                    let mode = Int((modes[tileRow + (x >> bits)] >> 8) & 0xF)
                    let tileEnd = min(((x >> bits) + 1) << bits, width)
                    while x < tileEnd {
                        let prediction = predict(mode, left: row[x - 1], top: above[x], topLeft: above[x - 1], topRight: above[x + 1])
                        row[x] = VP8LTransform.addPixels(row[x], prediction)
                        x += 1
                    }
                }
            }
        }
    }
}
