import LiftImage
import LiftTensor

/// Turns a photo into a model's input tensor as its `InputSpec` says, the way MediaPipe's CPU
/// `ImageToTensorCalculator` does it.
///
/// `"stretch"`: the whole frame is mapped onto the whole `height × width` tensor, aspect ratio not
/// kept, with MediaPipe's geometry — OpenCV `warpPerspective` of the frame's corners onto the
/// tensor's corners, so tensor pixel `(x, y)` samples the photo at `(x · W / width, y · H / height)`
/// (pixel centres at integers, no half-pixel shift), bilinear on the 8-bit samples in OpenCV's fixed
/// point (positions to 1/32 pixel, 15-bit weights, rounded to 8 bits), samples beyond the photo's
/// last row or column are 0 (zero border). Then each 8-bit sample `v` becomes
/// `(v · (high - low) / 255 + low - mean) / std` in Float32. Alpha is ignored.
///
/// `"area"`: the whole frame onto the whole tensor with half-pixel centres, each tensor pixel the
/// mean of the photo area it covers (bilinear on an axis that is enlarged), rounded to 8 bits, then
/// normalised the same way (`AreaResize`).
///
/// `"lanczos"`: as Pillow's `resize(LANCZOS)`, bit for bit (`LanczosResize`); rembg's models.
///
/// Mapping the probability map back: the map covers the whole photo; MediaPipe's
/// `TensorsToSegmentationCalculator` resizes it to the photo's size with OpenCV's bilinear `resize`
/// (half-pixel centres, edges clamped), which is `MaskResize.bilinear` with `.stretched` placement.
public struct Preprocess: Sendable {
    /// The model's input spec.
    public let spec: InputSpec

    /// A preprocessor for `spec`.
    public init(spec: InputSpec) {
        self.spec = spec
    }

    /// Number of Float32 values in the input tensor: `height · width · 3`.
    public var tensorCount: Int { spec.height * spec.width * 3 }

    /// The model input for `image`: NHWC Float32 `[1, height, width, 3]`, values as described above.
    /// - Parameters:
    ///   - image: the photo, at least 1×1.
    ///   - threads: worker threads for the resampling.
    /// - Throws: `PreprocessError.emptyImage` for a photo without pixels.
    public func tensorValues(_ image: RGBAImage, threads: Int = Parallel.defaultThreads) throws(PreprocessError) -> [Float] {
        var values = [Float](repeating: 0, count: tensorCount)
        try values.withUnsafeMutableBufferPointer { (output) throws(PreprocessError) in
            try write(image, into: output, threads: threads)
        }
        return values
    }

    /// Writes the model input for `image` into `output` (`tensorCount` floats, NHWC), for instance a
    /// graph's input tensor, without another copy.
    /// - Throws: `PreprocessError.emptyImage` for a photo without pixels.
    public func write(_ image: RGBAImage, into output: UnsafeMutableBufferPointer<Float>,
                      threads: Int = Parallel.defaultThreads) throws(PreprocessError) {
        precondition(output.count == tensorCount, "Preprocess output holds \(output.count) floats, needs \(tensorCount)")
        normalize(rgb: try resampled(image, threads: threads), into: output)
    }

    /// The photo stretched to `height × width` as 8-bit RGB (row-major, 3 bytes per pixel), before
    /// normalisation; for `"stretch"`, bit-identical to MediaPipe's OpenCV warp.
    /// - Throws: `PreprocessError.emptyImage` for a photo without pixels.
    public func resampled(_ image: RGBAImage, threads: Int = Parallel.defaultThreads) throws(PreprocessError) -> [UInt8] {
        guard image.width > 0, image.height > 0 else {
            throw .emptyImage(width: image.width, height: image.height)
        }
        switch spec.resize {
        case .stretch:
            return StretchWarp(sourceWidth: image.width, sourceHeight: image.height,
                               width: spec.width, height: spec.height).apply(to: image, threads: threads)
        case .area:
            return AreaResize(sourceWidth: image.width, sourceHeight: image.height,
                              width: spec.width, height: spec.height).apply(to: image, threads: threads)
        case .lanczos:
            return LanczosResize(sourceWidth: image.width, sourceHeight: image.height,
                                 width: spec.width, height: spec.height).apply(to: image, threads: threads)
        }
    }

    /// Normalises 8-bit RGB samples (`height · width · 3`, RGB order) into `output`, in the spec's
    /// channel order: `(v · (high - low) / 255 + low - mean[c]) / std[c]`, or `(v / m - mean[c]) / std[c]`
    /// with `m` the largest of the samples for `.maximum` scaling.
    public func normalize(rgb: [UInt8], into output: UnsafeMutableBufferPointer<Float>) {
        precondition(rgb.count == tensorCount && output.count == tensorCount,
                     "normalize needs \(tensorCount) samples and floats, got \(rgb.count) and \(output.count)")
        // MediaPipe: convertTo(CV_32F, scale, offset) with scale and offset computed in Float.
        var scale = (spec.range.high - spec.range.low) / 255
        let offset = spec.range.low
        if spec.scaling == .maximum {
            scale = 1 / Float(max(rgb.max() ?? 1, 1))
        }
        let order = spec.color == .rgb ? [0, 1, 2] : [2, 1, 0]
        var table = [Float](repeating: 0, count: 3 * 256)
        for channel in 0 ..< 3 {
            for v in 0 ..< 256 {
                table[channel * 256 + v] = (Float(v) * scale + offset - spec.mean[channel]) / spec.std[channel]
            }
        }
        rgb.withUnsafeBufferPointer { samples in
            table.withUnsafeBufferPointer { table in
                var i = 0
                while i < tensorCount {
                    for channel in 0 ..< 3 {
                        output[i &+ channel] = table[channel &* 256 &+ Int(samples[i &+ order[channel]])]
                    }
                    i &+= 3
                }
            }
        }
    }
}

/// Why a photo could not be turned into a model input.
public enum PreprocessError: Error, Equatable, CustomStringConvertible {
    /// The photo has no pixels.
    case emptyImage(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .emptyImage(width, height):
            return "The photo is \(width)×\(height) pixels; a model needs at least one pixel."
        }
    }
}

/// OpenCV's `warpPerspective(INTER_LINEAR, BORDER_CONSTANT 0)` of a whole frame onto `width × height`,
/// as MediaPipe sets it up (`getPerspectiveTransform` of the corners, then inverted), specialised to
/// its diagonal matrix: per axis, a list of two taps and their 5-bit weights.
struct StretchWarp {
    /// Per output column (or row): the two source indices and their weights (sum 32). A tap outside
    /// the source reads the zero border, so its weight is 0 and its index any valid one.
    struct Taps {
        var index0: [Int]
        var index1: [Int]
        var weight0: [Int32]
        var weight1: [Int32]
    }

    let columns: Taps
    let rows: Taps
    let width: Int
    let height: Int

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        // M = diag(a, b, 1) maps the frame onto the tensor; OpenCV inverts it with the 3×3 cofactor
        // formula in Double, which is what fixes how the 1/32-pixel positions round.
        let a = Double(width) / Double(sourceWidth), b = Double(height) / Double(sourceHeight)
        let inverseDeterminant = 1 / (a * b)
        let inverseX = b * inverseDeterminant, inverseY = a * inverseDeterminant
        let perspectiveScale = 32 / ((a * b) * inverseDeterminant)
        columns = StretchWarp.taps(count: width, sourceCount: sourceWidth, inverse: inverseX, scale: perspectiveScale)
        rows = StretchWarp.taps(count: height, sourceCount: sourceHeight, inverse: inverseY, scale: perspectiveScale)
        self.width = width
        self.height = height
    }

    static func taps(count: Int, sourceCount: Int, inverse: Double, scale: Double) -> Taps {
        var taps = Taps(index0: [], index1: [], weight0: [], weight1: [])
        for i in 0 ..< count {
            let position = (inverse * Double(i) * scale).rounded(.toNearestOrEven)
            let fixed = Int(min(max(position, Double(Int32.min)), Double(Int32.max)))
            let first = fixed >> 5, fraction = Int32(fixed & 31)
            let inside0 = first >= 0 && first < sourceCount, inside1 = first + 1 >= 0 && first + 1 < sourceCount
            taps.index0.append(inside0 ? first : 0)
            taps.index1.append(inside1 ? first + 1 : 0)
            taps.weight0.append(inside0 ? 32 - fraction : 0)
            taps.weight1.append(inside1 ? fraction : 0)
        }
        return taps
    }

    /// The warped image as RGB bytes (`height · width · 3`).
    func apply(to image: RGBAImage, threads: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: width * height * 3)
        let width = self.width, sourceRowBytes = image.width * 4
        image.pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { output in
                let source = source, output = output
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { rowRange in
                    for y in rowRange {
                        let row0 = rows.index0[y] &* sourceRowBytes, row1 = rows.index1[y] &* sourceRowBytes
                        let wy0 = rows.weight0[y], wy1 = rows.weight1[y]
                        for x in 0 ..< width {
                            let c0 = columns.index0[x] &* 4, c1 = columns.index1[x] &* 4
                            let w00 = wy0 &* columns.weight0[x], w01 = wy0 &* columns.weight1[x]
                            let w10 = wy1 &* columns.weight0[x], w11 = wy1 &* columns.weight1[x]
                            let target = (y &* width &+ x) &* 3
                            for channel in 0 ..< 3 {
                                let sum = w00 &* Int32(source[row0 &+ c0 &+ channel]) &+ w01 &* Int32(source[row0 &+ c1 &+ channel])
                                    &+ w10 &* Int32(source[row1 &+ c0 &+ channel]) &+ w11 &* Int32(source[row1 &+ c1 &+ channel])
                                // OpenCV: (Σ w·32·v + 2^14) >> 15 with w·32 its 15-bit weights.
                                output[target &+ channel] = UInt8((sum &+ 512) >> 10)
                            }
                        }
                    }
                }
            }
        }
        return output
    }
}
