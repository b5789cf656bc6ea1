import LiftImage

/// Slow, obviously-correct references for the mask stage, used by tests only.
public enum ReferenceMasks {
    /// A component found by flood fill: its pixels' statistics.
    public struct Component: Equatable, Sendable {
        /// Pixel count.
        public var area: Int
        /// Bounding box: first column, first row, last column, last row (inclusive).
        public var minX: Int, minY: Int, maxX: Int, maxY: Int
        /// Sums of pixel column and row indices.
        public var sumX: Int, sumY: Int
    }

    /// Labels `mask` (foreground where non-zero) by breadth-first flood fill from each unlabelled
    /// foreground pixel in raster order; labels start at 1, 0 is background.
    public static func floodFillLabels(_ mask: GrayImage, eight: Bool) -> (labels: [Int32], components: [Component]) {
        let width = mask.width, height = mask.height
        var labels = [Int32](repeating: 0, count: width * height)
        var components: [Component] = []
        var queue: [Int] = []
        for start in 0 ..< width * height where mask.pixels[start] != 0 && labels[start] == 0 {
            let label = Int32(components.count + 1)
            var component = Component(area: 0, minX: .max, minY: .max, maxX: .min, maxY: .min, sumX: 0, sumY: 0)
            labels[start] = label
            queue = [start]
            var head = 0
            while head < queue.count {
                let p = queue[head]
                head += 1
                let x = p % width, y = p / width
                component.area += 1
                component.minX = min(component.minX, x); component.maxX = max(component.maxX, x)
                component.minY = min(component.minY, y); component.maxY = max(component.maxY, y)
                component.sumX += x; component.sumY += y
                for dy in -1 ... 1 {
                    for dx in -1 ... 1 where (dx, dy) != (0, 0) && (eight || dx == 0 || dy == 0) {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                        let q = ny * width + nx
                        if mask.pixels[q] != 0 && labels[q] == 0 {
                            labels[q] = label
                            queue.append(q)
                        }
                    }
                }
            }
            components.append(component)
        }
        return (labels, components)
    }

    /// `mask` with its holes filled, by flood-filling the background (in the dual connectivity:
    /// 4 when foreground is 8-connected, else 8) from every border pixel; unreached background is a hole.
    public static func filledHoles(_ mask: GrayImage, eight: Bool) -> GrayImage {
        let width = mask.width, height = mask.height
        var outside = [Bool](repeating: false, count: width * height)
        var queue: [Int] = []
        for y in 0 ..< height {
            for x in 0 ..< width where (x == 0 || y == 0 || x == width - 1 || y == height - 1) && mask.pixels[y * width + x] == 0 {
                outside[y * width + x] = true
                queue.append(y * width + x)
            }
        }
        var head = 0
        let backgroundEight = !eight
        while head < queue.count {
            let p = queue[head]
            head += 1
            let x = p % width, y = p / width
            for dy in -1 ... 1 {
                for dx in -1 ... 1 where (dx, dy) != (0, 0) && (backgroundEight || dx == 0 || dy == 0) {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                    let q = ny * width + nx
                    if mask.pixels[q] == 0 && !outside[q] {
                        outside[q] = true
                        queue.append(q)
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: (0 ..< width * height).map { outside[$0] ? mask.pixels[$0] : 255 })
    }

    /// The guided filter computed directly: every box mean by summing its clipped window, the 3×3
    /// system solved in Double by Cramer's rule. With `subsampling` s > 1: s×s block averages first,
    /// radius `round(r/s)` (at least 1), and the averaged coefficients interpolated bilinearly back
    /// with block centres aligned and edge clamping. Output clamped to 0…1.
    public static func guidedFilter(guide: RGBAImage, input: FloatMap, radius: Int, epsilon: Double, subsampling s: Int) -> [Float] {
        let width = input.width, height = input.height
        let lw = (width + s - 1) / s, lh = (height + s - 1) / s
        let r = max(1, Int((Double(radius) / Double(s)).rounded()))
        // Block averages: I (3) and p.
        var low = [[Double]](repeating: [Double](repeating: 0, count: lw * lh), count: 4)
        for ly in 0 ..< lh {
            for lx in 0 ..< lw {
                var sum = [Double](repeating: 0, count: 4)
                var count = 0
                for y in ly * s ..< min(ly * s + s, height) {
                    for x in lx * s ..< min(lx * s + s, width) {
                        for c in 0 ..< 3 { sum[c] += Double(guide.pixels[(y * width + x) * 4 + c]) / 255 }
                        sum[3] += Double(input.values[y * width + x])
                        count += 1
                    }
                }
                for c in 0 ..< 4 { low[c][ly * lw + lx] = sum[c] / Double(count) }
            }
        }
        func boxMean(_ plane: [Double]) -> [Double] {
            var out = [Double](repeating: 0, count: lw * lh)
            for y in 0 ..< lh {
                for x in 0 ..< lw {
                    var sum = 0.0, count = 0
                    for yy in max(0, y - r) ... min(lh - 1, y + r) {
                        for xx in max(0, x - r) ... min(lw - 1, x + r) { sum += plane[yy * lw + xx]; count += 1 }
                    }
                    out[y * lw + x] = sum / Double(count)
                }
            }
            return out
        }
        let meanI = (0 ..< 3).map { boxMean(low[$0]) }
        let meanP = boxMean(low[3])
        var corr = [[[Double]]](repeating: [[Double]](repeating: [], count: 3), count: 3)
        for i in 0 ..< 3 {
            for j in i ..< 3 {
                corr[i][j] = boxMean((0 ..< lw * lh).map { low[i][$0] * low[j][$0] })
                corr[j][i] = corr[i][j]
            }
        }
        let corrIP = (0 ..< 3).map { c in boxMean((0 ..< lw * lh).map { low[c][$0] * low[3][$0] }) }
        var coefficients = [[Double]](repeating: [Double](repeating: 0, count: lw * lh), count: 4)
        for k in 0 ..< lw * lh {
            var sigma = [[Double]](repeating: [0, 0, 0], count: 3)
            for i in 0 ..< 3 {
                for j in 0 ..< 3 { sigma[i][j] = corr[i][j][k] - meanI[i][k] * meanI[j][k] + (i == j ? epsilon : 0) }
            }
            let cov = (0 ..< 3).map { corrIP[$0][k] - meanI[$0][k] * meanP[k] }
            func det(_ m: [[Double]]) -> Double {
                m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                    + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            }
            let d = det(sigma)
            var b = meanP[k]
            for c in 0 ..< 3 {
                var replaced = sigma
                for row in 0 ..< 3 { replaced[row][c] = cov[row] }
                let a = det(replaced) / d
                coefficients[c][k] = a
                b -= a * meanI[c][k]
            }
            coefficients[3][k] = b
        }
        let meanCoefficients = coefficients.map(boxMean)
        func sample(_ plane: [Double], _ x: Int, _ y: Int) -> Double {
            func taps(_ i: Int, _ n: Int) -> (Int, Int, Double) {
                let position = min(max((Double(i) + 0.5) / Double(s) - 0.5, 0), Double(n - 1))
                let lower = Int(position.rounded(.down))
                return (lower, min(lower + 1, n - 1), position - Double(lower))
            }
            let (x0, x1, wx) = taps(x, lw), (y0, y1, wy) = taps(y, lh)
            let top = plane[y0 * lw + x0] * (1 - wx) + plane[y0 * lw + x1] * wx
            let bottom = plane[y1 * lw + x0] * (1 - wx) + plane[y1 * lw + x1] * wx
            return top * (1 - wy) + bottom * wy
        }
        var output = [Float](repeating: 0, count: width * height)
        for y in 0 ..< height {
            for x in 0 ..< width {
                var q = sample(meanCoefficients[3], x, y)
                for c in 0 ..< 3 { q += sample(meanCoefficients[c], x, y) * Double(guide.pixels[(y * width + x) * 4 + c]) / 255 }
                output[y * width + x] = Float(min(max(q, 0), 1))
            }
        }
        return output
    }
}
