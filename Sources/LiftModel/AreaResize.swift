import LiftImage
import LiftTensor

/// The whole frame resampled to `width × height` (aspect ratio not kept) with half-pixel centres,
/// as OpenCV's `resize(INTER_AREA)` shrinks a photo: per axis, when shrinking by r = source/target,
/// target pixel `i` is the mean of the source interval `[i·r, (i+1)·r)`, partly covered pixels
/// weighed by their overlap; when enlarging, it is bilinear at source position `(i + 0.5)·r − 0.5`,
/// clamped to the edges. Every photo pixel counts, so a 4000-pixel photo shrunk to 256 does not
/// alias, and the map's pixel centres line up with the photo's (`MaskResize`'s `.stretched`).
typealias AreaResize = SeparableResize<AreaTaps>

/// Per target index of one axis: the first source index, how many follow, and their weights
/// (sum 1), `stride` weights per index (see `AreaResize`).
struct AreaTaps: ResizeTaps {
    var first: [Int]
    var count: [Int]
    var weights: [Float]
    var stride: Int

    init(target: Int, source: Int) {
        let ratio = Double(source) / Double(target)
        stride = ratio > 1 ? Int(ratio.rounded(.up)) + 1 : 2
        first = []
        count = []
        weights = [Float](repeating: 0, count: target * stride)
        for i in 0 ..< target {
            var taps: [(Int, Double)] = []
            if ratio > 1 {
                let low = Double(i) * ratio, high = min(Double(i + 1) * ratio, Double(source))
                var j = Int(low.rounded(.down))
                while Double(j) < high && j < source {
                    let overlap = min(high, Double(j + 1)) - max(low, Double(j))
                    if overlap > 0 { taps.append((j, overlap / ratio)) }
                    j += 1
                }
            } else {
                let position = min(max((Double(i) + 0.5) * ratio - 0.5, 0), Double(source - 1))
                let j = Int(position.rounded(.down)), fraction = position - Double(j)
                taps = j + 1 < source ? [(j, 1 - fraction), (j + 1, fraction)] : [(j, 1)]
            }
            first.append(taps[0].0)
            count.append(taps.count)
            for (k, tap) in taps.enumerated() { weights[i * stride + k] = Float(tap.1) }
        }
    }
}

extension SeparableResize where Taps == AreaTaps {
    /// The resampled image as RGB bytes (`height · width · 3`), each sample rounded to the nearest
    /// 8-bit value. Alpha is ignored. Each target row sums its source rows resampled across, so the
    /// scratch is one target row per part, whatever the photo's width.
    func apply(to image: RGBAImage, threads: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: width * height * 3)
        let width = self.width, rowBytes = image.width * 4
        let rows = self.rows, columns = self.columns
        image.pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { output in
                let source = source, output = output
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 8) { part in
                    let sums = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width)
                    defer { sums.deallocate() }
                    for y in part {
                        sums.initialize(repeating: SIMD4(), count: width)
                        for k in 0 ..< rows.count[y] {
                            let rowWeight = rows.weights[y &* rows.stride &+ k]
                            let pixels = source.baseAddress! + (rows.first[y] &+ k) &* rowBytes
                            for x in 0 ..< width {
                                var sum = SIMD4<Float>()
                                let taps = pixels + columns.first[x] &* 4, weights = x &* columns.stride
                                for t in 0 ..< columns.count[x] {
                                    let p = taps + t &* 4
                                    sum.addProduct(columns.weights[weights &+ t], SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 0))
                                }
                                sums[x].addProduct(rowWeight, sum)
                            }
                        }
                        let target = output.baseAddress! + y &* width &* 3
                        for x in 0 ..< width {
                            let rounded = pointwiseMin(pointwiseMax(sums[x] + 0.5, SIMD4()), SIMD4(repeating: 255))
                            for channel in 0 ..< 3 { target[x &* 3 &+ channel] = UInt8(rounded[channel]) }
                        }
                    }
                }
            }
        }
        return output
    }
}
