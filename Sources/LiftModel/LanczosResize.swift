import Foundation
import LiftImage
import LiftTensor

/// The whole frame resampled to `width × height` (aspect ratio not kept) exactly as Pillow's
/// `Image.resize(size, Image.LANCZOS)` does it on an 8-bit RGB image — the resize rembg applies
/// before its models (`"resize": "lanczos"` in `lift.input`).
///
/// Pillow (`libImaging/Resample.c`): per axis, scale = source / target and filter scale
/// max(scale, 1); output pixel `i` is centred at `(i + 0.5) · scale` and reads source pixels
/// `[⌊centre − 3·fs + 0.5⌋, ⌊centre + 3·fs + 0.5⌋)` clamped to the image, weighted by
/// `lanczos3((j − centre + 0.5) / fs)` normalised to sum 1, in fixed point with 22 fraction bits
/// (each weight rounded half away from zero), the sum rounded and clamped to 8 bits. The columns
/// are resampled first, into 8-bit rows, then the rows.
typealias LanczosResize = SeparableResize<LanczosTaps>

/// Per target index of one axis: the first source index and its fixed-point weights (see
/// `LanczosResize`).
struct LanczosTaps: ResizeTaps {
    /// Fraction bits of Pillow's fixed-point weights (`PRECISION_BITS`, 32 − 8 − 2).
    static let precisionBits = 22

    var first: [Int] = []
    var weights: [[Int32]] = []

    init(target: Int, source: Int) {
        let scale = Double(source) / Double(target)
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        for i in 0 ..< target {
            let centre = (Double(i) + 0.5) * scale
            let low = max(Int(centre - support + 0.5), 0)
            let high = min(Int(centre + support + 0.5), source)
            var values: [Double] = []
            for j in low ..< max(high, low) {
                values.append(Self.lanczos((Double(j) - centre + 0.5) / filterScale))
            }
            let total = values.reduce(0, +)
            if total != 0 { values = values.map { $0 / total } }
            let unit = Double(1 << LanczosTaps.precisionBits)
            first.append(low)
            weights.append(values.map { Int32(($0 < 0 ? -0.5 : 0.5) + $0 * unit) })
        }
    }

    /// Pillow's `lanczos_filter`: sinc(x) · sinc(x / 3) on [−3, 3), else 0.
    static func lanczos(_ x: Double) -> Double {
        guard x >= -3, x < 3 else { return 0 }
        return sinc(x) * sinc(x / 3)
    }

    static func sinc(_ x: Double) -> Double {
        guard x != 0 else { return 1 }
        let angle = x * Double.pi
        return sin(angle) / angle
    }
}

extension SeparableResize where Taps == LanczosTaps {
    /// One fixed-point sum rounded and clamped to 8 bits, as Pillow's `clip8`.
    @inline(__always)
    private static func clip8(_ sum: Int32) -> UInt8 {
        UInt8(clamping: sum >> Int32(LanczosTaps.precisionBits))
    }

    /// The resampled image as RGB bytes (`height · width · 3`). Alpha is ignored.
    func apply(to image: RGBAImage, threads: Int) -> [UInt8] {
        let width = self.width, height = self.height, sourceWidth = image.width, sourceHeight = image.height
        let columns = self.columns, rows = self.rows
        let half = Int32(1 << (LanczosTaps.precisionBits - 1))
        // Columns first: every source row to `width` pixels, RGB.
        var across = [UInt8](repeating: 0, count: sourceHeight * width * 3)
        image.pixels.withUnsafeBufferPointer { source in
            across.withUnsafeMutableBufferPointer { across in
                let source = source, across = across
                Parallel.forEach(count: sourceHeight, threads: threads, minimumPerPart: 16) { part in
                    for y in part {
                        let row = source.baseAddress! + y &* sourceWidth &* 4
                        let target = across.baseAddress! + y &* width &* 3
                        for x in 0 ..< width {
                            let taps = columns.weights[x], first = columns.first[x]
                            var r = half, g = half, b = half
                            for (k, weight) in taps.enumerated() {
                                let p = row + (first &+ k) &* 4
                                r &+= Int32(p[0]) &* weight
                                g &+= Int32(p[1]) &* weight
                                b &+= Int32(p[2]) &* weight
                            }
                            target[x &* 3] = Self.clip8(r)
                            target[x &* 3 &+ 1] = Self.clip8(g)
                            target[x &* 3 &+ 2] = Self.clip8(b)
                        }
                    }
                }
            }
        }
        // Then rows.
        var output = [UInt8](repeating: 0, count: height * width * 3)
        across.withUnsafeBufferPointer { across in
            output.withUnsafeMutableBufferPointer { output in
                let across = across, output = output
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 8) { part in
                    for y in part {
                        let taps = rows.weights[y], first = rows.first[y]
                        let target = output.baseAddress! + y &* width &* 3
                        for i in 0 ..< width * 3 {
                            var sum = half
                            for (k, weight) in taps.enumerated() {
                                sum &+= Int32(across[(first &+ k) &* width &* 3 &+ i]) &* weight
                            }
                            target[i] = Self.clip8(sum)
                        }
                    }
                }
            }
        }
        return output
    }
}
