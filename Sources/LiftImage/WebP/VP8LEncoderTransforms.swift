import LiftParallel

/// The transforms the lossless encoder applies before entropy coding (RFC 9649 §4): subtract green,
/// and the predictor transform with a mode chosen per tile.
enum VP8LEncoderTransforms {
    /// Subtracts green from red and blue in every ARGB pixel.
    static func subtractGreen(_ pixels: inout [UInt32]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            for i in buffer.indices {
                let pixel = buffer[i]
                let green = (pixel >> 8) & 0xFF
                let redBlue = ((pixel & 0x00FF_00FF) &+ 0x0100_0100 &- (green << 16 | green)) & 0x00FF_00FF
                buffer[i] = pixel & 0xFF00_FF00 | redBlue
            }
        }
    }

    /// Per-channel difference of two ARGB pixels, each channel modulo 256.
    @inline(__always)
    static func subtractPixels(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let alphaGreen = ((a | 0x00FF_00FF) &- (b & 0xFF00_FF00)) & 0xFF00_FF00
        let redBlue = ((a | 0xFF00_FF00) &- (b & 0x00FF_00FF)) & 0x00FF_00FF
        return alphaGreen | redBlue
    }

    /// The cost of a residual in the mode search: the sum of its channels' distances from 0 (as
    /// signed bytes), a stand-in for the bits small residuals save.
    @inline(__always)
    private static func cost(_ residual: UInt32) -> Int {
        var total = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let byte = Int((residual >> shift) & 0xFF)
            total &+= min(byte, 256 &- byte)
        }
        return total
    }

    /// Chooses a predictor mode (0…13) for each `1 << bits` square tile, the one whose residuals cost
    /// least, and returns the mode image (mode in the green byte, alpha 255) and the residuals the
    /// decoder's inverse predictor turns back into `pixels` (its fixed rules for the first row and
    /// column included). Tile rows are independent, so they are shared out over `threads`.
    static func predict(_ pixels: [UInt32], width: Int, height: Int, bits: Int, threads: Int) -> (modes: [UInt32], residuals: [UInt32]) {
        let columns = VP8LTransform.subsampled(width, bits: bits), rows = VP8LTransform.subsampled(height, bits: bits)
        var modes = [UInt32](repeating: 0xFF00_0000, count: columns * rows)
        var residuals = [UInt32](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            modes.withUnsafeMutableBufferPointer { modeOut in
                residuals.withUnsafeMutableBufferPointer { out in
                    guard let p = source.baseAddress, let m = modeOut.baseAddress, let r = out.baseAddress else { return }
                    Parallel.forEach(count: rows, threads: threads) { tileRows in
                        for tileY in tileRows {
                            let y0 = tileY << bits, y1 = min(y0 + (1 << bits), height)
                            for tileX in 0 ..< columns {
                                let x0 = tileX << bits, x1 = min(x0 + (1 << bits), width)
                                var bestMode = 0, bestCost = Int.max
                                for mode in 0 ... 13 {
                                    var total = 0
                                    for y in max(y0, 1) ..< y1 {
                                        for x in max(x0, 1) ..< x1 where total < bestCost {
                                            total &+= cost(subtractPixels(p[y &* width &+ x], prediction(p, x, y, width, mode)))
                                        }
                                    }
                                    if total < bestCost {
                                        bestCost = total
                                        bestMode = mode
                                    }
                                }
                                m[tileY &* columns &+ tileX] = 0xFF00_0000 | UInt32(bestMode) << 8
                                for y in y0 ..< y1 {
                                    for x in x0 ..< x1 {
                                        let i = y &* width &+ x
                                        let predicted = y == 0 ? (x == 0 ? 0xFF00_0000 : p[i &- 1]) : x == 0 ? p[i &- width] : prediction(p, x, y, width, bestMode)
                                        r[i] = subtractPixels(p[i], predicted)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (modes, residuals)
    }

    /// The prediction of `mode` for pixel (`x`, `y`), both at least 1 (the neighbours exist).
    @inline(__always)
    private static func prediction(_ p: UnsafePointer<UInt32>, _ x: Int, _ y: Int, _ width: Int, _ mode: Int) -> UInt32 {
        let i = y &* width &+ x
        return VP8LPredictor.predict(mode, left: p[i &- 1], top: p[i &- width], topLeft: p[i &- width &- 1], topRight: p[i &- width &+ 1])
    }
}
