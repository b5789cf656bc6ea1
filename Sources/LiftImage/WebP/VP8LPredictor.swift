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

    /// The four channels of `pixel` (blue, green, red, alpha) as lanes.
    @inline(__always)
    private static func lanes(_ pixel: UInt32) -> SIMD4<Int16> {
        SIMD4<Int16>(truncatingIfNeeded: unsafeBitCast(pixel.littleEndian, to: SIMD4<UInt8>.self))
    }

    /// The pixel of four channel lanes, each clamped to 0…255.
    @inline(__always)
    private static func clampedPixel(_ v: SIMD4<Int16>) -> UInt32 {
        let low = SIMD4<Int16>(repeating: 0), high = SIMD4<Int16>(repeating: 255)
        let raised = v.replacing(with: low, where: v .< low)
        return UInt32(littleEndian: unsafeBitCast(SIMD4<UInt8>(truncatingIfNeeded: raised.replacing(with: high, where: raised .> high)), to: UInt32.self))
    }

    /// The sum of the lanes' absolute values.
    @inline(__always)
    private static func absoluteSum(_ v: SIMD4<Int16>) -> Int16 {
        v.replacing(with: 0 &- v, where: v .< 0).wrappedSum()
    }

    /// Left or top, whichever is closer (Manhattan distance over the four channels) to the gradient
    /// estimate `left + top - topLeft`; top on a tie.
    @inline(__always)
    static func select(left: UInt32, top: UInt32, topLeft: UInt32) -> UInt32 {
        let corner = lanes(topLeft)
        let distanceToLeft = absoluteSum(lanes(top) &- corner)   // |estimate - left|
        let distanceToTop = absoluteSum(lanes(left) &- corner)   // |estimate - top|
        return distanceToLeft < distanceToTop ? left : top
    }

    /// Per channel, `a + b - c` clamped to 0…255.
    @inline(__always)
    static func clampAddSubtractFull(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt32 {
        clampedPixel(lanes(a) &+ lanes(b) &- lanes(c))
    }

    /// Per channel, `a + (a - b) / 2` (division rounding toward zero) clamped to 0…255.
    @inline(__always)
    static func clampAddSubtractHalf(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let x = lanes(a)
        return clampedPixel(x &+ (x &- lanes(b)) / 2)
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
                    let end = min(((x >> bits) + 1) << bits, width)
                    addTile(mode: Int((modes[tileRow + (x >> bits)] >> 8) & 0xF), row, above, x, end)
                    x = end
                }
            }
        }
    }

    /// Adds the predictions of `mode` to pixels `start..<end` of `row` (`above` is the row before).
    @inline(__always)
    private static func addTile(mode: Int, _ row: UnsafeMutablePointer<UInt32>, _ above: UnsafeMutablePointer<UInt32>, _ start: Int, _ end: Int) {
        switch mode {
        case 1: addRun(row, above, start, end) { l, _, _, _ in l }
        case 2: addRun(row, above, start, end) { _, t, _, _ in t }
        case 3: addRun(row, above, start, end) { _, _, _, tr in tr }
        case 4: addRun(row, above, start, end) { _, _, tl, _ in tl }
        case 5: addRun(row, above, start, end) { l, t, _, tr in average(average(l, tr), t) }
        case 6: addRun(row, above, start, end) { l, _, tl, _ in average(l, tl) }
        case 7: addRun(row, above, start, end) { l, t, _, _ in average(l, t) }
        case 8: addRun(row, above, start, end) { _, t, tl, _ in average(tl, t) }
        case 9: addRun(row, above, start, end) { _, t, _, tr in average(t, tr) }
        case 10: addRun(row, above, start, end) { l, t, tl, tr in average(average(l, tl), average(t, tr)) }
        case 11: addRun(row, above, start, end) { l, t, tl, _ in select(left: l, top: t, topLeft: tl) }
        case 12: addRun(row, above, start, end) { l, t, tl, _ in clampAddSubtractFull(l, t, tl) }
        case 13: addRun(row, above, start, end) { l, t, tl, _ in clampAddSubtractHalf(average(l, t), tl) }
        default: addRun(row, above, start, end) { _, _, _, _ in 0xFF00_0000 }
        }
    }

    /// Adds `predict(left, top, topLeft, topRight)` to each pixel of `start..<end`, left to right.
    @inline(__always)
    private static func addRun(_ row: UnsafeMutablePointer<UInt32>, _ above: UnsafeMutablePointer<UInt32>, _ start: Int, _ end: Int,
                               _ predict: (UInt32, UInt32, UInt32, UInt32) -> UInt32) {
        var left = row[start &- 1]
        for x in start ..< end {
            left = VP8LTransform.addPixels(row[x], predict(left, above[x], above[x &- 1], above[x &+ 1]))
            row[x] = left
        }
    }
}
