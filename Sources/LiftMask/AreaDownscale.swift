import LiftImage
import LiftTensor

/// Shrinking RGBA images by area averaging.
public enum AreaDownscale {
    /// `image` shrunk so its longer side is `maxLongSide` (unchanged when it already fits).
    /// The other side is scaled by the same factor and rounded, at least 1.
    public static func fit(_ image: RGBAImage, maxLongSide: Int, threads: Int = Parallel.defaultThreads) -> RGBAImage {
        precondition(maxLongSide >= 1, "maxLongSide must be at least 1")
        guard let (width, height) = fittedSize(width: image.width, height: image.height, maxLongSide: maxLongSide) else { return image }
        return resize(image, width: width, height: height, threads: threads)
    }

    /// The size `fit` shrinks a `width × height` image to, or nil when it already fits.
    public static func fittedSize(width: Int, height: Int, maxLongSide: Int) -> (width: Int, height: Int)? {
        let long = max(width, height)
        guard long > maxLongSide else { return nil }
        let scale = Double(maxLongSide) / Double(long)
        return (width >= height ? maxLongSide : max(1, Int((Double(width) * scale).rounded())),
                height > width ? maxLongSide : max(1, Int((Double(height) * scale).rounded())))
    }

    /// `image` resized down to `width × height` (each no larger than the source's) by area averaging:
    /// each output pixel is the coverage-weighted mean of the source pixels under it, averaged with
    /// premultiplied alpha so transparent pixels lend no colour. An output pixel is opaque (alpha 255)
    /// only when every source pixel under it is: then its colour is their plain area average, so the
    /// opaque pixels of a shrunk cut-out are the shrunk photo's.
    public static func resize(_ image: RGBAImage, width: Int, height: Int, threads: Int = Parallel.defaultThreads) -> RGBAImage {
        Rows(of: StoredRGBARows(stored: image), width: width, height: height).image(threads: threads)
    }

    /// `resize` of an image given as rows, itself as rows: output row `y` renders the source rows
    /// under it (those on a boundary twice), so neither image is held whole.
    public struct Rows: RGBARows {
        public let width: Int, height: Int
        public var isOpaque: Bool { false }
        private let source: any RGBARows
        private let columns: AreaTaps, rows: AreaTaps

        /// `source` reduced to `width × height` (each at least 1 and no larger than the source's).
        public init(of source: any RGBARows, width: Int, height: Int) {
            precondition(width >= 1 && height >= 1 && width <= source.width && height <= source.height,
                         "area downscale needs 1 ≤ output ≤ input")
            self.width = width
            self.height = height
            self.source = source
            columns = AreaTaps(outputCount: width, inputCount: source.width)
            rows = AreaTaps(outputCount: height, inputCount: source.height)
        }

        /// One source row, its horizontal pass and the running vertical sum (premultiplied floats), a
        /// flag per output pixel (some source pixel under it is not opaque), then the source's own.
        public var scratchBytes: Int { Self.rounded(source.width * 4) + 2 * width * 16 + Self.rounded(width) + source.scratchBytes }

        private static func rounded(_ bytes: Int) -> Int { (bytes + 15) / 16 * 16 }

        public func render(row y: Int, into out: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutableRawPointer) {
            let input = scratch.assumingMemoryBound(to: UInt8.self)
            let horizontal = (scratch + Self.rounded(source.width * 4)).assumingMemoryBound(to: SIMD4<Float>.self)
            let sum = horizontal + width
            let translucent = (scratch + Self.rounded(source.width * 4) + 2 * width * 16).assumingMemoryBound(to: Bool.self)
            let sourceScratch = scratch + Self.rounded(source.width * 4) + 2 * width * 16 + Self.rounded(width)
            sum.update(repeating: SIMD4(), count: width)
            translucent.update(repeating: false, count: width)
            for t in rows.offsets[y] ..< rows.offsets[y + 1] {
                source.render(row: rows.index[t], into: input, scratch: sourceScratch)
                // Horizontal pass to premultiplied floats, then this row's share of the vertical sum.
                for x in 0 ..< width {
                    var row = SIMD4<Float>()
                    var opaque = true
                    for c in columns.offsets[x] ..< columns.offsets[x + 1] {
                        let p = input + columns.index[c] &* 4
                        let a = Float(p[3])
                        opaque = opaque && p[3] == 255
                        row += columns.weight[c] * SIMD4(Float(p[0]) * a, Float(p[1]) * a, Float(p[2]) * a, a)
                    }
                    horizontal[x] = row
                    if !opaque { translucent[x] = true }
                }
                let weight = rows.weight[t]
                for x in 0 ..< width { sum[x] += weight * horizontal[x] }
            }
            for x in 0 ..< width {
                let s = sum[x], o = out + x &* 4
                let a = s[3]
                let alphaByte = translucent[x] ? min(max(a, 0), 254).rounded() : 255
                // Colour only where the alpha byte is non-zero: a pixel written as fully
                // transparent keeps nothing of the photo (the cut-out's contract).
                if alphaByte > 0 {
                    o[0] = UInt8(min(max(s[0] / a, 0), 255).rounded())
                    o[1] = UInt8(min(max(s[1] / a, 0), 255).rounded())
                    o[2] = UInt8(min(max(s[2] / a, 0), 255).rounded())
                } else {
                    o[0] = 0; o[1] = 0; o[2] = 0
                }
                o[3] = UInt8(alphaByte)
            }
        }
    }
}

/// Area-averaging weights along one axis: output `i` covers input interval `[i·S, (i+1)·S)`,
/// S = input/output, and each input pixel weighs its overlap / S.
struct AreaTaps: Sendable {
    /// Taps of output `i` are `offsets[i] ..< offsets[i + 1]`.
    var offsets: [Int] = [0]
    /// Input index of each tap.
    var index: [Int] = []
    /// Weight of each tap; the weights of one output sum to 1.
    var weight: [Float] = []

    init(outputCount: Int, inputCount: Int) {
        let step = Double(inputCount) / Double(outputCount)
        for i in 0 ..< outputCount {
            let lower = Double(i) * step, upper = Double(i + 1) * step
            var k = Int(lower.rounded(.down))
            while k < inputCount && Double(k) < upper {
                let overlap = min(upper, Double(k + 1)) - max(lower, Double(k))
                if overlap > 1e-9 {
                    index.append(k)
                    weight.append(Float(overlap / step))
                }
                k += 1
            }
            offsets.append(index.count)
        }
    }
}
