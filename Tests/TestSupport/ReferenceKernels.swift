import Foundation
import LiftTensor

/// Plain-loop reference implementations of every LiftTensor kernel, written for obviousness, not
/// speed: the parity tests and the benchmarks compare the SIMD kernels against these.
/// Sums run in Double; padding and output sizes are derived here from the formulas in
/// `Sources/LiftModel/GRAPH-FORMAT.md`, not borrowed from LiftTensor.
public enum ReferenceKernels {
    /// An activation by definition (Double precision).
    public static func activate(_ x: Double, _ activation: Activation) -> Double {
        switch activation {
        case .none: return x
        case .relu: return max(x, 0)
        case .relu6: return min(max(x, 0), 6)
        case .hardswish: return x * min(max(x + 3, 0), 6) / 6
        case .sigmoid: return 1 / (1 + exp(-x))
        }
    }

    /// A unary op by definition (Double precision).
    public static func unary(_ x: Double, _ op: UnaryOp) -> Double {
        switch op {
        case .relu: return max(x, 0)
        case .relu6: return min(max(x, 0), 6)
        case .sigmoid: return 1 / (1 + exp(-x))
        case .hardsigmoid: return min(max(x + 3, 0), 6) / 6
        case .hardswish: return x * min(max(x + 3, 0), 6) / 6
        case .tanh: return Foundation.tanh(x)
        }
    }

    /// TensorFlow SAME padding on one axis: (before, after).
    public static func samePadding(input: Int, kernel: Int, stride: Int, dilation: Int) -> (Int, Int) {
        let out = Int((Double(input) / Double(stride)).rounded(.up))
        let total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - input, 0)
        return (total / 2, total - total / 2)
    }

    /// Convolution with OHWI weights `[Cout, Kh, Kw, Cin/groups]`, zero padding, bias, activation.
    public static func conv2d(input: Tensor, weights: [Float], bias: [Float]?, outputChannels cout: Int,
                              parameters p: Conv2DParameters) -> Tensor {
        let s = input.shape, x = input.toArray()
        let (top, left, bottom, right): (Int, Int, Int, Int)
        switch p.padding {
        case .valid: (top, left, bottom, right) = (0, 0, 0, 0)
        case .explicit(let e): (top, left, bottom, right) = (e.top, e.left, e.bottom, e.right)
        case .same:
            let v = samePadding(input: s.h, kernel: p.kernelHeight, stride: p.strideY, dilation: p.dilationY)
            let h = samePadding(input: s.w, kernel: p.kernelWidth, stride: p.strideX, dilation: p.dilationX)
            (top, left, bottom, right) = (v.0, h.0, v.1, h.1)
        }
        let ho = (s.h + top + bottom - (p.kernelHeight - 1) * p.dilationY - 1) / p.strideY + 1
        let wo = (s.w + left + right - (p.kernelWidth - 1) * p.dilationX - 1) / p.strideX + 1
        let cinG = s.c / p.groups, coutG = cout / p.groups
        var y = [Float](repeating: 0, count: s.n * ho * wo * cout)
        for b in 0 ..< s.n { for oy in 0 ..< ho { for ox in 0 ..< wo { for co in 0 ..< cout {
            let group = co / coutG
            var sum = Double(bias?[co] ?? 0)
            for ky in 0 ..< p.kernelHeight { for kx in 0 ..< p.kernelWidth {
                let iy = oy * p.strideY - top + ky * p.dilationY
                let ix = ox * p.strideX - left + kx * p.dilationX
                guard iy >= 0, iy < s.h, ix >= 0, ix < s.w else { continue }
                for ci in 0 ..< cinG {
                    let xv = x[((b * s.h + iy) * s.w + ix) * s.c + group * cinG + ci]
                    let wv = weights[((co * p.kernelHeight + ky) * p.kernelWidth + kx) * cinG + ci]
                    sum += Double(xv) * Double(wv)
                }
            } }
            y[((b * ho + oy) * wo + ox) * cout + co] = Float(activate(sum, p.activation))
        } } } }
        return Tensor(shape: TensorShape(n: s.n, h: ho, w: wo, c: cout), values: y)
    }

    /// Transposed convolution by scattering every input pixel through `[Cout, Kh, Kw, Cin]` weights
    /// into the full `(in−1)·stride + k` output, then cropping `crop` = (top, left, bottom, right)
    /// (negative bottom/right extend the output with bias-only pixels).
    public static func convTranspose2d(input: Tensor, weights: [Float], bias: [Float]?, outputChannels cout: Int,
                                       kernel: (Int, Int), stride: (Int, Int), crop: (Int, Int, Int, Int),
                                       activation: Activation) -> Tensor {
        let s = input.shape, x = input.toArray()
        let fullH = (s.h - 1) * stride.0 + kernel.0 + max(-crop.2, 0)
        let fullW = (s.w - 1) * stride.1 + kernel.1 + max(-crop.3, 0)
        var full = [Double](repeating: 0, count: s.n * fullH * fullW * cout)
        for b in 0 ..< s.n { for iy in 0 ..< s.h { for ix in 0 ..< s.w {
            for ky in 0 ..< kernel.0 { for kx in 0 ..< kernel.1 { for co in 0 ..< cout {
                let oy = iy * stride.0 + ky, ox = ix * stride.1 + kx
                var sum = 0.0
                for ci in 0 ..< s.c {
                    sum += Double(x[((b * s.h + iy) * s.w + ix) * s.c + ci])
                        * Double(weights[((co * kernel.0 + ky) * kernel.1 + kx) * s.c + ci])
                }
                full[((b * fullH + oy) * fullW + ox) * cout + co] += sum
            } } }
        } } }
        let ho = (s.h - 1) * stride.0 + kernel.0 - crop.0 - crop.2
        let wo = (s.w - 1) * stride.1 + kernel.1 - crop.1 - crop.3
        var y = [Float](repeating: 0, count: s.n * ho * wo * cout)
        for b in 0 ..< s.n { for oy in 0 ..< ho { for ox in 0 ..< wo { for co in 0 ..< cout {
            let value = full[((b * fullH + oy + crop.0) * fullW + ox + crop.1) * cout + co] + Double(bias?[co] ?? 0)
            y[((b * ho + oy) * wo + ox) * cout + co] = Float(activate(value, activation))
        } } } }
        return Tensor(shape: TensorShape(n: s.n, h: ho, w: wo, c: cout), values: y)
    }

    /// PyTorch's `max_pool2d` / `avg_pool2d` (explicit symmetric or asymmetric padding, ceil mode,
    /// count_include_pad), written as in ATen's reference loops.
    public static func pool2d(input: Tensor, isMax: Bool, kernel: (Int, Int), stride: (Int, Int),
                              padding: Padding, ceilMode: Bool, countIncludePad: Bool) -> Tensor {
        let s = input.shape, x = input.toArray()
        func outSize(_ n: Int, _ pb: Int, _ pa: Int, _ k: Int, _ st: Int) -> Int {
            let numerator = Double(n + pb + pa - k) / Double(st)
            var o = Int(ceilMode ? numerator.rounded(.up) : numerator.rounded(.down)) + 1
            if ceilMode && (o - 1) * st >= n + pb { o -= 1 }
            return o
        }
        let ho = outSize(s.h, padding.top, padding.bottom, kernel.0, stride.0)
        let wo = outSize(s.w, padding.left, padding.right, kernel.1, stride.1)
        var y = [Float](repeating: 0, count: s.n * ho * wo * s.c)
        for b in 0 ..< s.n { for oy in 0 ..< ho { for ox in 0 ..< wo { for c in 0 ..< s.c {
            var hStart = oy * stride.0 - padding.top, wStart = ox * stride.1 - padding.left
            var hEnd = min(hStart + kernel.0, s.h + padding.bottom), wEnd = min(wStart + kernel.1, s.w + padding.right)
            let poolSize = (hEnd - hStart) * (wEnd - wStart)
            hStart = max(hStart, 0); wStart = max(wStart, 0); hEnd = min(hEnd, s.h); wEnd = min(wEnd, s.w)
            var best = -Double.infinity, sum = 0.0
            for iy in hStart ..< max(hEnd, hStart) { for ix in wStart ..< max(wEnd, wStart) {
                let v = Double(x[((b * s.h + iy) * s.w + ix) * s.c + c])
                best = max(best, v); sum += v
            } }
            let divisor = countIncludePad ? poolSize : (hEnd - hStart) * (wEnd - wStart)
            y[((b * ho + oy) * wo + ox) * s.c + c] = Float(isMax ? best : (divisor > 0 ? sum / Double(divisor) : 0))
        } } } }
        return Tensor(shape: TensorShape(n: s.n, h: ho, w: wo, c: s.c), values: y)
    }

    /// Mean of each channel over all pixels: `[N, 1, 1, C]`.
    public static func globalAveragePool(input: Tensor) -> Tensor {
        let s = input.shape, x = input.toArray()
        var y = [Float](repeating: 0, count: s.n * s.c)
        for b in 0 ..< s.n { for c in 0 ..< s.c {
            var sum = 0.0
            for i in 0 ..< s.h * s.w { sum += Double(x[(b * s.h * s.w + i) * s.c + c]) }
            y[b * s.c + c] = Float(sum / Double(s.h * s.w))
        } }
        return Tensor(shape: TensorShape(n: s.n, h: 1, w: 1, c: s.c), values: y)
    }

    /// Source coordinate of output index `d` by the GRAPH-FORMAT formulas.
    static func sourceCoordinate(_ d: Int, _ input: Int, _ output: Int, _ mode: ResizeCoordinates) -> Double {
        switch mode {
        case .halfPixel: return max((Double(d) + 0.5) * Double(input) / Double(output) - 0.5, 0)
        case .alignCorners: return output > 1 ? Double(d) * Double(input - 1) / Double(output - 1) : 0
        case .asymmetric: return Double(d) * Double(input) / Double(output)
        }
    }

    /// Bilinear resize to `height × width` with edge clamping.
    public static func resizeBilinear(input: Tensor, height: Int, width: Int, coordinates: ResizeCoordinates) -> Tensor {
        let s = input.shape, x = input.toArray()
        var y = [Float](repeating: 0, count: s.n * height * width * s.c)
        for b in 0 ..< s.n { for oy in 0 ..< height { for ox in 0 ..< width {
            let sy = sourceCoordinate(oy, s.h, height, coordinates), sx = sourceCoordinate(ox, s.w, width, coordinates)
            let y0 = min(Int(sy.rounded(.down)), s.h - 1), x0 = min(Int(sx.rounded(.down)), s.w - 1)
            let y1 = min(y0 + 1, s.h - 1), x1 = min(x0 + 1, s.w - 1)
            let ly = min(sy - Double(y0), 1), lx = min(sx - Double(x0), 1)
            for c in 0 ..< s.c {
                func at(_ yy: Int, _ xx: Int) -> Double { Double(x[((b * s.h + yy) * s.w + xx) * s.c + c]) }
                let value = (1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) + ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1))
                y[((b * height + oy) * width + ox) * s.c + c] = Float(value)
            }
        } } }
        return Tensor(shape: TensorShape(n: s.n, h: height, w: width, c: s.c), values: y)
    }

    /// Nearest resize: floor((d+0.5)·in/out) for half-pixel, floor(d·in/out) for asymmetric,
    /// round(d·(in−1)/(out−1)) for align-corners, clamped to the input.
    public static func resizeNearest(input: Tensor, height: Int, width: Int, coordinates: ResizeCoordinates) -> Tensor {
        let s = input.shape, x = input.toArray()
        func index(_ d: Int, _ n: Int, _ o: Int) -> Int {
            let v: Double
            switch coordinates {
            case .halfPixel: v = ((Double(d) + 0.5) * Double(n) / Double(o)).rounded(.down)
            case .asymmetric: v = (Double(d) * Double(n) / Double(o)).rounded(.down)
            case .alignCorners: v = (o > 1 ? Double(d) * Double(n - 1) / Double(o - 1) : 0).rounded()
            }
            return min(max(Int(v), 0), n - 1)
        }
        var y = [Float](repeating: 0, count: s.n * height * width * s.c)
        for b in 0 ..< s.n { for oy in 0 ..< height { for ox in 0 ..< width { for c in 0 ..< s.c {
            y[((b * height + oy) * width + ox) * s.c + c] = x[((b * s.h + index(oy, s.h, height)) * s.w + index(ox, s.w, width)) * s.c + c]
        } } } }
        return Tensor(shape: TensorShape(n: s.n, h: height, w: width, c: s.c), values: y)
    }

    /// `activation(a ∘ b)` with b of a's shape or `[N|1, 1, 1, C]`.
    public static func binary(_ op: BinaryOp, a: Tensor, b: Tensor, activation: Activation) -> Tensor {
        let s = a.shape, bs = b.shape, x = a.toArray(), z = b.toArray()
        var y = [Float](repeating: 0, count: s.count)
        for n in 0 ..< s.n { for i in 0 ..< s.h * s.w { for c in 0 ..< s.c {
            let index = (n * s.h * s.w + i) * s.c + c
            let other = bs == s ? z[index] : z[(bs.n == 1 ? 0 : n) * s.c + c]
            let u = Double(x[index]), v = Double(other)
            let r: Double
            switch op {
            case .add: r = u + v
            case .mul: r = u * v
            case .sub: r = u - v
            }
            y[index] = Float(activate(r, activation))
        } } }
        return Tensor(shape: s, values: y)
    }

    /// Channel concatenation.
    public static func concat(_ inputs: [Tensor]) -> Tensor {
        let s = inputs[0].shape, total = inputs.reduce(0) { $0 + $1.shape.c }
        var y = [Float]()
        for pixel in 0 ..< s.n * s.h * s.w {
            for t in inputs { y += t.toArray()[pixel * t.shape.c ..< (pixel + 1) * t.shape.c] }
        }
        return Tensor(shape: TensorShape(n: s.n, h: s.h, w: s.w, c: total), values: y)
    }

    /// Constant padding.
    public static func pad(_ input: Tensor, _ p: Padding, value: Float) -> Tensor {
        let s = input.shape, ho = s.h + p.top + p.bottom, wo = s.w + p.left + p.right
        let out = Tensor(shape: TensorShape(n: s.n, h: ho, w: wo, c: s.c))
        for b in 0 ..< s.n { for y in 0 ..< ho { for x in 0 ..< wo { for c in 0 ..< s.c {
            let iy = y - p.top, ix = x - p.left
            out[b, y, x, c] = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w ? input[b, iy, ix, c] : value
        } } } }
        return out
    }
}
