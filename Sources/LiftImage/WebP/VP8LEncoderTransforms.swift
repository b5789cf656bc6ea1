import Foundation
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

    /// Chooses a predictor mode (0…13) for each `1 << bits` square tile and returns the mode image
    /// (mode in the green byte, alpha 255) and the residuals the decoder's inverse predictor turns back
    /// into `pixels` (its fixed rules for the first row and column included).
    ///
    /// Two passes: first each tile takes the mode whose residuals are smallest (the sum of their
    /// channels' distances from 0, as signed bytes); then, with the bits each residual byte value
    /// costs in the histogram of those residuals (`-log2` of its frequency), each tile takes the mode
    /// whose residuals cost fewest bits, which favours the values the whole image uses. Tile rows are
    /// independent in each pass, so they are shared out over `threads`.
    static func predict(_ pixels: [UInt32], width: Int, height: Int, bits: Int, threads: Int) -> (modes: [UInt32], residuals: [UInt32]) {
        let distanceCosts: [Float] = (0 ..< 4 * 256).map { (index: Int) -> Float in
            let byte = index & 0xFF
            return Float(min(byte, 256 - byte))
        }
        var modes = chooseModes(pixels, width: width, height: height, bits: bits, threads: threads, costs: distanceCosts)
        var residuals = applyModes(pixels, modes: modes, width: width, height: height, bits: bits, threads: threads)
        var histogram = [Int](repeating: 0, count: 4 * 256)
        for residual in residuals {
            histogram[Int(residual & 0xFF)] += 1
            histogram[256 + Int((residual >> 8) & 0xFF)] += 1
            histogram[512 + Int((residual >> 16) & 0xFF)] += 1
            histogram[768 + Int(residual >> 24)] += 1
        }
        let total = Float(residuals.count + 256)
        let bitCosts = histogram.map { -log2(Float($0 + 1) / total) }
        modes = chooseModes(pixels, width: width, height: height, bits: bits, threads: threads, costs: bitCosts)
        residuals = applyModes(pixels, modes: modes, width: width, height: height, bits: bits, threads: threads)
        return (modes, residuals)
    }

    /// For each tile, the mode whose residuals cost least: `costs[256 · channel + byte]` per residual
    /// channel (blue 0, green 1, red 2, alpha 3), summed over the tile's pixels outside the first row
    /// and column (whose prediction is fixed).
    private static func chooseModes(_ pixels: [UInt32], width: Int, height: Int, bits: Int, threads: Int, costs: [Float]) -> [UInt32] {
        let columns = VP8LTransform.subsampled(width, bits: bits), rows = VP8LTransform.subsampled(height, bits: bits)
        var modes = [UInt32](repeating: 0xFF00_0000, count: columns * rows)
        pixels.withUnsafeBufferPointer { source in
            costs.withUnsafeBufferPointer { costs in
                modes.withUnsafeMutableBufferPointer { modeOut in
                    guard let p = source.baseAddress, let c = costs.baseAddress, let m = modeOut.baseAddress else { return }
                    Parallel.forEach(count: rows, threads: threads) { tileRows in
                        for tileY in tileRows {
                            let y0 = max(tileY << bits, 1), y1 = min((tileY + 1) << bits, height)
                            for tileX in 0 ..< columns {
                                let x0 = max(tileX << bits, 1), x1 = min((tileX + 1) << bits, width)
                                var bestMode = 0, bestCost = Float.infinity
                                for mode in 0 ... 13 {
                                    var total: Float = 0
                                    var y = y0
                                    while y < y1 && total < bestCost {
                                        for x in x0 ..< x1 {
                                            let r = subtractPixels(p[y &* width &+ x], prediction(p, x, y, width, mode))
                                            total += c[Int(r & 0xFF)] + c[256 &+ Int((r >> 8) & 0xFF)]
                                                + c[512 &+ Int((r >> 16) & 0xFF)] + c[768 &+ Int(r >> 24)]
                                        }
                                        y &+= 1
                                    }
                                    if total < bestCost {
                                        bestCost = total
                                        bestMode = mode
                                    }
                                }
                                m[tileY &* columns &+ tileX] = 0xFF00_0000 | UInt32(bestMode) << 8
                            }
                        }
                    }
                }
            }
        }
        return modes
    }

    /// The residuals of `pixels` under the tile modes `modes`.
    private static func applyModes(_ pixels: [UInt32], modes: [UInt32], width: Int, height: Int, bits: Int, threads: Int) -> [UInt32] {
        let columns = VP8LTransform.subsampled(width, bits: bits)
        var residuals = [UInt32](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            residuals.withUnsafeMutableBufferPointer { out in
                guard let p = source.baseAddress, let r = out.baseAddress else { return }
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { rows in
                    for y in rows {
                        for x in 0 ..< width {
                            let i = y &* width &+ x
                            let predicted: UInt32
                            if y == 0 {
                                predicted = x == 0 ? 0xFF00_0000 : p[i &- 1]
                            } else if x == 0 {
                                predicted = p[i &- width]
                            } else {
                                predicted = prediction(p, x, y, width, Int((modes[(y >> bits) &* columns &+ (x >> bits)] >> 8) & 0xF))
                            }
                            r[i] = subtractPixels(p[i], predicted)
                        }
                    }
                }
            }
        }
        return residuals
    }

    /// The prediction of `mode` for pixel (`x`, `y`), both at least 1 (the neighbours exist).
    @inline(__always)
    private static func prediction(_ p: UnsafePointer<UInt32>, _ x: Int, _ y: Int, _ width: Int, _ mode: Int) -> UInt32 {
        let i = y &* width &+ x
        return VP8LPredictor.predict(mode, left: p[i &- 1], top: p[i &- width], topLeft: p[i &- width &- 1], topRight: p[i &- width &+ 1])
    }
}
