import LiftImage
import LiftTensor

/// Edge-aware refinement of a soft mask with the photo as guide: the guided filter of He, Sun and
/// Tang ("Guided Image Filtering", TPAMI 2013), colour-guide version, in its fast form (He and Sun,
/// "Fast Guided Filter", 2015).
///
/// Within each `(2r+1)²` window the output is a linear function of the guide's colour,
/// `q = aᵀ I + b`, fitted to the input by ridge regression with regulariser `epsilon`; the
/// coefficients are averaged over all windows covering a pixel. Where the photo has an edge inside
/// the mask's blurred transition, the output snaps to it; where the photo is flat, the output keeps
/// the input. Guide channels are scaled to 0…1, so `epsilon` is in squared colour units.
///
/// With `subsampling` s > 1 the coefficients are fitted on s×s block averages of guide and input
/// (radius r/s) and bilinearly upsampled (half-pixel, block centres aligned) before `aᵀ I + b` is
/// applied with the full-resolution guide: about s² less work and memory, and the output keeps
/// full-resolution detail because `I` enters at full resolution. s = 1 is the exact filter.
/// Box means use running sums, O(pixels) for any radius.
public struct GuidedFilter: Sendable, Hashable {
    /// Window radius in full-resolution pixels (window side `2r+1`).
    public var radius: Int
    /// Ridge regulariser; larger keeps the input where photo edges are weak. Typical 1e-4…1e-2.
    public var epsilon: Float
    /// Block size s of the fast guided filter; 1 = exact.
    public var subsampling: Int

    /// A filter; `radius >= 1`, `epsilon > 0`, `subsampling >= 1`.
    public init(radius: Int, epsilon: Float, subsampling: Int = 1) {
        precondition(radius >= 1 && epsilon > 0 && subsampling >= 1, "GuidedFilter needs radius ≥ 1, epsilon > 0, subsampling ≥ 1")
        self.radius = radius
        self.epsilon = epsilon
        self.subsampling = subsampling
    }

    /// The subsampling Lift uses for a photo: the smallest s that brings the longer side to 1024 or less.
    public static func defaultSubsampling(width: Int, height: Int) -> Int {
        max(1, (max(width, height) + 1023) / 1024)
    }

    /// Filters `input` (any values, usually 0…1) guided by the RGB of `guide`; alpha of the guide is ignored.
    /// - Parameter inputThreshold: when given, the input is first made 0/1 (1 where `input >= inputThreshold`):
    ///   feathering a hard mask without building it.
    /// - Returns: the filtered map at `input`'s size, clamped to 0…1.
    public func apply(guide: RGBAImage, input: FloatMap, inputThreshold: Float? = nil,
                      threads: Int = Parallel.defaultThreads) -> FloatMap {
        guard input.width > 0, input.height > 0 else { return input }
        return apply(guide: guide, input: MapRows(input), inputThreshold: inputThreshold, threads: threads)
    }

    /// `apply` with the input read row by row (an upsampled map need not be stored to be filtered).
    package func apply(guide: RGBAImage, input: MapRows, inputThreshold: Float? = nil,
                       threads: Int = Parallel.defaultThreads) -> FloatMap {
        MapRows(output(guide: guide, input: input, inputThreshold: inputThreshold, threads: threads))
            .materialized(threads: threads)
    }

    /// The filter's output as rows computed on demand: the averaged coefficients a and b on the
    /// grid, and the guide, so the output need not be stored (`apply` stores it).
    package func output(guide: RGBAImage, input: MapRows, inputThreshold: Float?, threads: Int) -> any MapRowSampler {
        precondition(guide.width == input.width && guide.height == input.height, "guide and input must have the same size")
        let width = input.width, height = input.height
        precondition(width > 0 && height > 0, "the input has pixels")
        let s = subsampling
        let lowWidth = (width + s - 1) / s, lowHeight = (height + s - 1) / s
        let lowRadius = max(1, Int((Double(radius) / Double(s)).rounded()))
        let n = lowWidth * lowHeight
        // The result's 4 planes are allocated before the 14 working ones, so that freeing these leaves
        // one hole at the heap's end (which the later grid buffers of a cut-out reuse) rather than a
        // hole below the result (a 12 MP cut-out's peak RSS: 198-206 MB this way, 233-237 MB the other).
        let result = UnsafeMutablePointer<Float>.allocate(capacity: 4 * n)
        // Planes: 0-2 I, 3 p, 4-9 I·Iᵀ (rr rg rb gg gb bb), 10-12 I·p; then reused for a (3) and b.
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 14 * n)
        defer { planes.deallocate() }
        let scratch = planes + 13 * n
        nonisolated(unsafe) let p = planes
        guide.pixels.withUnsafeBufferPointer { rgba in
            BlockAverage.rgbAndMap(rgba: rgba.nonEmptyBase, map: input, block: s, mapThreshold: inputThreshold,
                                   into: (p, p + n, p + 2 * n, p + 3 * n), threads: threads)
        }
        Parallel.forEach(count: n, threads: threads, minimumPerPart: 1 << 14) { range in
            for i in range {
                let r = p[i], g = p[n &+ i], b = p[2 &* n &+ i], v = p[3 &* n &+ i]
                p[4 &* n &+ i] = r * r; p[5 &* n &+ i] = r * g; p[6 &* n &+ i] = r * b
                p[7 &* n &+ i] = g * g; p[8 &* n &+ i] = g * b; p[9 &* n &+ i] = b * b
                p[10 &* n &+ i] = r * v; p[11 &* n &+ i] = g * v; p[12 &* n &+ i] = b * v
            }
        }
        for plane in 0 ..< 13 {
            BoxFilter.mean(p + plane * n, scratch: scratch, width: lowWidth, height: lowHeight, radius: lowRadius, threads: threads)
        }
        let eps = Double(epsilon)
        Parallel.forEach(count: n, threads: threads, minimumPerPart: 1 << 14) { range in
            for i in range {
                let mr = p[i], mg = p[n &+ i], mb = p[2 &* n &+ i], mp = p[3 &* n &+ i]
                // Σ + εI and the covariance in Double: the Float means leave variances that can
                // cancel to slightly negative values, so they are clamped at 0 before ε is added.
                let srr = Double(max(p[4 &* n &+ i] - mr * mr, 0)) + eps
                let sgg = Double(max(p[7 &* n &+ i] - mg * mg, 0)) + eps
                let sbb = Double(max(p[9 &* n &+ i] - mb * mb, 0)) + eps
                let srg = Double(p[5 &* n &+ i] - mr * mg), srb = Double(p[6 &* n &+ i] - mr * mb)
                let sgb = Double(p[8 &* n &+ i] - mg * mb)
                let cr = Double(p[10 &* n &+ i] - mr * mp), cg = Double(p[11 &* n &+ i] - mg * mp)
                let cb = Double(p[12 &* n &+ i] - mb * mp)
                // a = Σ⁻¹ c through the adjugate of the symmetric 3×3 Σ; a window too flat to solve keeps the input mean.
                let i00 = sgg * sbb - sgb * sgb, i01 = srb * sgb - srg * sbb, i02 = srg * sgb - srb * sgg
                let i11 = srr * sbb - srb * srb, i12 = srg * srb - srr * sgb, i22 = srr * sgg - srg * srg
                let det = srr * i00 + srg * i01 + srb * i02
                var ar: Float = 0, ag: Float = 0, ab: Float = 0
                if det > 1e-30 && det.isFinite {
                    // |a| is at most about 1/(smallest colour step) ≈ 255 on real data; the bound keeps
                    // aᵀI + b finite when rounding leaves Σ nearly singular.
                    let inv = 1 / det, bound = 1e4
                    ar = Float(min(max((i00 * cr + i01 * cg + i02 * cb) * inv, -bound), bound))
                    ag = Float(min(max((i01 * cr + i11 * cg + i12 * cb) * inv, -bound), bound))
                    ab = Float(min(max((i02 * cr + i12 * cg + i22 * cb) * inv, -bound), bound))
                }
                p[4 &* n &+ i] = ar; p[5 &* n &+ i] = ag; p[6 &* n &+ i] = ab
                p[7 &* n &+ i] = mp - ar * mr - ag * mg - ab * mb
            }
        }
        for plane in 4 ..< 8 {
            BoxFilter.mean(p + plane * n, scratch: scratch, width: lowWidth, height: lowHeight, radius: lowRadius, threads: threads)
        }
        result.update(from: planes + 4 * n, count: 4 * n)
        return GuidedOutput(guide: guide, lowWidth: lowWidth, lowHeight: lowHeight, block: s, coefficients: result)
    }
}

/// The guided filter's output `q = aᵀ I + b`, row by row: the averaged coefficients on the grid
/// (R, G, B and b planes), bilinearly upsampled per row (prepared: one blended grid row, the colour
/// weights scaled to the guide's 0…255), then applied to each guide pixel and clamped to 0…1.
final class GuidedOutput: MapRowSampler, @unchecked Sendable {
    // @unchecked: the planes are written once in init and only read afterwards.
    let width: Int, height: Int
    private let guide: RGBAImage
    private let lowWidth: Int, planeSize: Int
    /// a_R, a_G, a_B, b planes, `planeSize` = `lowWidth × lowHeight` each.
    private let planes: UnsafeMutablePointer<Float>
    private let columns: BilinearTaps, rows: BilinearTaps

    /// Takes ownership of `coefficients`: the four planes a_R, a_G, a_B, b (each `lowWidth × lowHeight`).
    init(guide: RGBAImage, lowWidth: Int, lowHeight: Int, block: Int, coefficients: UnsafeMutablePointer<Float>) {
        width = guide.width
        height = guide.height
        self.guide = guide
        self.lowWidth = lowWidth
        planeSize = lowWidth * lowHeight
        planes = coefficients
        let scale = 1 / Double(block)
        columns = BilinearTaps(count: width, sourceCount: lowWidth, scale: scale, offset: 0.5 * scale - 0.5)
        rows = BilinearTaps(count: height, sourceCount: lowHeight, scale: scale, offset: 0.5 * scale - 0.5)
    }

    deinit { planes.deallocate() }

    var scratchBytes: Int { lowWidth * MemoryLayout<SIMD4<Float>>.stride }

    func prepare(row y: Int, scratch: UnsafeMutableRawPointer) {
        let blended = scratch.assumingMemoryBound(to: SIMD4<Float>.self)
        let plane = planeSize
        let a0 = planes, a1 = planes + plane, a2 = planes + 2 * plane, b = planes + 3 * plane
        let r0 = rows.first[y] &* lowWidth, r1 = rows.second[y] &* lowWidth, wy = rows.weight[y]
        for i in 0 ..< lowWidth {
            let top = SIMD4(a0[r0 &+ i], a1[r0 &+ i], a2[r0 &+ i], b[r0 &+ i])
            let bottom = SIMD4(a0[r1 &+ i], a1[r1 &+ i], a2[r1 &+ i], b[r1 &+ i])
            blended[i] = (top + wy * (bottom - top)) * SIMD4(1 / 255, 1 / 255, 1 / 255, 1)
        }
    }

    @inline(__always)
    func value(x: Int, y: Int, prepared scratch: UnsafeMutableRawPointer) -> Float {
        guide.pixels.withUnsafeBufferPointer { rgba in value(x: x, pixel: rgba.nonEmptyBase + (y &* width &+ x) &* 4, prepared: scratch) }
    }

    @inline(__always)
    private func value(x: Int, pixel: UnsafePointer<UInt8>, prepared scratch: UnsafeMutableRawPointer) -> Float {
        let blended = scratch.assumingMemoryBound(to: SIMD4<Float>.self)
        let left = blended[columns.first[x]], right = blended[columns.second[x]]
        let c = left + columns.weight[x] * (right - left)
        let guideColor = SIMD4<Float>(Float(pixel[0]), Float(pixel[1]), Float(pixel[2]), 1)
        return min(max((c * guideColor).sum(), 0), 1)
    }

    func render(row y: Int, columns: Range<Int>, into out: UnsafeMutablePointer<Float>, prepared scratch: UnsafeMutableRawPointer) {
        guide.pixels.withUnsafeBufferPointer { rgba in
            let pixels = rgba.nonEmptyBase + y &* width &* 4
            for x in columns { out[x] = value(x: x, pixel: pixels + x &* 4, prepared: scratch) }
        }
    }

    func render(row y: Int, into out: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer) {
        prepare(row: y, scratch: scratch)
        render(row: y, columns: 0 ..< width, into: out, prepared: scratch)
    }
}

/// s×s block averages (partial blocks at the right and bottom edges average what they hold).
enum BlockAverage {
    /// Averages the RGB of `rgba` (scaled to 0…1, `map`'s size) and `map` into four planes of size
    /// ⌈w/s⌉ × ⌈h/s⌉; with `mapThreshold`, the map counts as 1 where `>= mapThreshold`, else 0.
    static func rgbAndMap(rgba: UnsafePointer<UInt8>, map: MapRows, block: Int, mapThreshold: Float? = nil,
                          into planes: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>,
                                        UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>), threads: Int) {
        let width = map.width, height = map.height
        let lowWidth = (width + block - 1) / block
        let threshold = mapThreshold
        nonisolated(unsafe) let planes = planes
        if block == 1 {
            // No averaging: the planes are the photo's channels and the map, converted.
            map.withRowReader { read in
                Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { rows in
                    let scratch = map.allocateScratch()
                    defer { scratch.deallocate() }
                    for y in rows {
                        let pixels = rgba + y &* width &* 4, values = read(y, scratch), o = y &* width
                        for x in 0 ..< width {
                            planes.0[o &+ x] = Float(pixels[x &* 4]) * (1 / 255)
                            planes.1[o &+ x] = Float(pixels[x &* 4 &+ 1]) * (1 / 255)
                            planes.2[o &+ x] = Float(pixels[x &* 4 &+ 2]) * (1 / 255)
                        }
                        if let threshold {
                            for x in 0 ..< width { planes.3[o &+ x] = values[x] >= threshold ? 1 : 0 }
                        } else {
                            (planes.3 + o).update(from: values, count: width)
                        }
                    }
                }
            }
            return
        }
        forEachBlockRow(of: map, block: block, threads: threads) { ly, y0, y1, rowsOfBlock in
            for lx in 0 ..< lowWidth {
                let x0 = lx * block, x1 = min(x0 + block, width)
                // Colour sums in integers (exact, no conversions in the loop), map sum in Float.
                var red = 0, green = 0, blue = 0
                var mapSum: Float = 0
                for y in y0 ..< y1 {
                    let pixels = rgba + y &* width &* 4, values = rowsOfBlock[y &- y0]
                    for x in x0 ..< x1 {
                        red &+= Int(pixels[x &* 4]); green &+= Int(pixels[x &* 4 &+ 1]); blue &+= Int(pixels[x &* 4 &+ 2])
                    }
                    if let threshold {
                        for x in x0 ..< x1 { mapSum += values[x] >= threshold ? 1 : 0 }
                    } else {
                        for x in x0 ..< x1 { mapSum += values[x] }
                    }
                }
                var sum = SIMD4(Float(red) * (1 / 255), Float(green) * (1 / 255), Float(blue) * (1 / 255), mapSum)
                sum /= Float((y1 - y0) * (x1 - x0))
                let o = ly &* lowWidth &+ lx
                planes.0[o] = sum[0]; planes.1[o] = sum[1]; planes.2[o] = sum[2]; planes.3[o] = sum[3]
            }
        }
    }

    /// Calls `body(ly, y0, y1, rows)` for each row of blocks `ly` (photo rows `y0 ..< y1`) in parallel,
    /// `rows[y - y0]` pointing to map row `y` (read once per block row).
    static func forEachBlockRow(of map: MapRows, block: Int, threads: Int,
                                _ body: (Int, Int, Int, UnsafePointer<UnsafePointer<Float>>) -> Void) {
        let height = map.height, lowHeight = (height + block - 1) / block
        let stride = (map.scratchBytes + 15) / 16 * 16
        map.withRowReader { read in
            Parallel.forEach(count: lowHeight, threads: threads, minimumPerPart: 8) { lowRows in
                let rowsOfBlock = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: block)
                let scratch = UnsafeMutableRawPointer.allocate(byteCount: max(block * stride, 16), alignment: 16)
                defer { rowsOfBlock.deallocate(); scratch.deallocate() }
                for ly in lowRows {
                    let y0 = ly * block, y1 = min(y0 + block, height)
                    for y in y0 ..< y1 { rowsOfBlock[y - y0] = read(y, scratch + (y - y0) * stride) }
                    body(ly, y0, y1, rowsOfBlock)
                }
            }
        }
    }
}
