import LiftParallel

/// Converts VP8's 4:2:0 planes to RGBA exactly as libwebp's default output does: "fancy" upsampling
/// of the chroma (each output pixel mixes the four nearest chroma samples 9:3:3:1, computed as two
/// averages with libwebp's rounding) and its 14-bit fixed-point BT.601 YUV → RGB conversion.
/// Rows are independent, so they are shared out in bands over threads.
enum VP8Upsampler {
    /// RGBA (alpha 255) of the `planes.width × planes.height` picture.
    static func rgba(_ planes: VP8Decoder.Planes, threads: Int) -> [UInt8] {
        let width = planes.width, height = planes.height
        let chromaRows = (height + 1) / 2
        return [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            let output = out.baseAddress.unsafelyUnwrapped
            planes.luma.withUnsafeBufferPointer { luma in
                planes.u.withUnsafeBufferPointer { u in
                    planes.v.withUnsafeBufferPointer { v in
                        let lumaBase = luma.baseAddress.unsafelyUnwrapped, uBase = u.baseAddress.unsafelyUnwrapped
                        let vBase = v.baseAddress.unsafelyUnwrapped
                        Parallel.forEach(count: height, threads: threads, minimumPerPart: 64) { rows in
                            for y in rows {
                                // The chroma row nearest this row, and the one on its other side
                                // (the same one at the top and bottom of the picture).
                                let near = y == 0 ? 0 : (y - 1) / 2 + (y & 1 == 0 ? 1 : 0)
                                let far = min(y == 0 ? 0 : (y - 1) / 2 + (y & 1), chromaRows - 1)
                                row(luma: lumaBase + y * planes.lumaStride,
                                    nearU: uBase + near * planes.chromaStride, farU: uBase + far * planes.chromaStride,
                                    nearV: vBase + near * planes.chromaStride, farV: vBase + far * planes.chromaStride,
                                    width: width, into: output + y * width * 4)
                            }
                        }
                    }
                }
            }
            initialized = width * height * 4
        }
    }

    /// One output row from its luma row and the two chroma rows around it (`near` weighs 3, `far` 1).
    /// Horizontally, the first pixel (and the last of an even width) take only the vertical mix
    /// `(3·near + far + 2) / 4`; pixels 2j-1 and 2j mix chroma columns j-1 and j.
    @inline(__always)
    private static func row(luma: UnsafePointer<UInt8>, nearU: UnsafePointer<UInt8>, farU: UnsafePointer<UInt8>,
                            nearV: UnsafePointer<UInt8>, farV: UnsafePointer<UInt8>, width: Int, into out: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func edge(_ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>, _ j: Int) -> Int {
            (3 * Int(near[j]) + Int(far[j]) + 2) >> 2
        }
        store(luma[0], edge(nearU, farU, 0), edge(nearV, farV, 0), out)
        let pairs = (width - 1) >> 1
        var j = 1
        // Eight pairs (sixteen pixels, 2j-1 … 2j+14) at a time, then one pair at a time.
        while j + 7 <= pairs {
            let (u0, u1) = mix8(nearU + j, farU + j)
            let (v0, v1) = mix8(nearV + j, farV + j)
            var u = SIMD16<Int32>(), v = SIMD16<Int32>()
            u.evenHalf = u0
            u.oddHalf = u1
            v.evenHalf = v0
            v.oddHalf = v1
            let y = SIMD16<Int32>(truncatingIfNeeded: UnsafeRawPointer(luma + 2 * j - 1).loadUnaligned(as: SIMD16<UInt8>.self))
            store16(y, u, v, out + (2 * j - 1) * 4)
            j += 8
        }
        while j <= pairs {
            let (u0, u1) = mix(nearU, farU, j)
            let (v0, v1) = mix(nearV, farV, j)
            store(luma[2 * j - 1], u0, v0, out + (2 * j - 1) * 4)
            store(luma[2 * j], u1, v1, out + 2 * j * 4)
            j += 1
        }
        if width & 1 == 0 {
            store(luma[width - 1], edge(nearU, farU, pairs), edge(nearV, farV, pairs), out + (width - 1) * 4)
        }
    }

    /// `mix` for the eight pairs j…j+7 (`near` and `far` point at chroma column j).
    @inline(__always)
    private static func mix8(_ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>) -> (SIMD8<Int32>, SIMD8<Int32>) {
        func load(_ p: UnsafePointer<UInt8>) -> SIMD8<Int32> {
            SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
        }
        let nearLeft = load(near - 1), nearRight = load(near), farLeft = load(far - 1), farRight = load(far)
        let sum = nearLeft &+ nearRight &+ farLeft &+ farRight &+ 8
        let towardLeft = (sum &+ 2 &* (nearRight &+ farLeft)) &>> 3
        let towardRight = (sum &+ 2 &* (nearLeft &+ farRight)) &>> 3
        return ((towardLeft &+ nearLeft) &>> 1, (towardRight &+ nearRight) &>> 1)
    }

    /// `store` for sixteen pixels.
    @inline(__always)
    private static func store16(_ y: SIMD16<Int32>, _ u: SIMD16<Int32>, _ v: SIMD16<Int32>, _ out: UnsafeMutablePointer<UInt8>) {
        let luma = (y &* 19077) &>> 8
        let r = clip16(luma &+ ((v &* 26149) &>> 8) &- 14234)
        let g = clip16(luma &- ((u &* 6419) &>> 8) &- ((v &* 13320) &>> 8) &+ 8708)
        let b = clip16(luma &+ ((u &* 33050) &>> 8) &- 17685)
        let pixels = SIMD16<UInt32>(truncatingIfNeeded: r | g &<< 8 | b &<< 16) | 0xFF00_0000
        UnsafeMutableRawPointer(out).storeBytes(of: pixels, as: SIMD16<UInt32>.self)
    }

    /// `clip` for sixteen values.
    @inline(__always)
    private static func clip16(_ v: SIMD16<Int32>) -> SIMD16<Int32> {
        let low = SIMD16<Int32>(repeating: 0), high = SIMD16<Int32>(repeating: 16383)
        let raised = v.replacing(with: low, where: v .< low)
        return raised.replacing(with: high, where: raised .> high) &>> 6
    }

    /// The two output samples between chroma columns j-1 and j: `(9·n[j-1] + 3·n[j] + 3·f[j-1] + f[j]) / 16`
    /// and its mirror, each as the average of a diagonal mean and the nearest sample.
    @inline(__always)
    private static func mix(_ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>, _ j: Int) -> (Int, Int) {
        let nearLeft = Int(near[j - 1]), nearRight = Int(near[j]), farLeft = Int(far[j - 1]), farRight = Int(far[j])
        let sum = nearLeft + nearRight + farLeft + farRight + 8
        let towardLeft = (sum + 2 * (nearRight + farLeft)) >> 3
        let towardRight = (sum + 2 * (nearLeft + farRight)) >> 3
        return ((towardLeft + nearLeft) >> 1, (towardRight + nearRight) >> 1)
    }

    /// Writes the RGBA of one pixel from its Y, U, V samples.
    @inline(__always)
    private static func store(_ y: UInt8, _ u: Int, _ v: Int, _ out: UnsafeMutablePointer<UInt8>) {
        let luma = (Int(y) * 19077) >> 8
        out[0] = clip(luma + ((v * 26149) >> 8) - 14234)
        out[1] = clip(luma - ((u * 6419) >> 8) - ((v * 13320) >> 8) + 8708)
        out[2] = clip(luma + ((u * 33050) >> 8) - 17685)
        out[3] = 255
    }

    /// A 6-bit fixed-point value to a byte, clamped to 0…255.
    @inline(__always)
    private static func clip(_ v: Int) -> UInt8 {
        (v & ~16383) == 0 ? UInt8(v >> 6) : v < 0 ? 0 : 255
    }
}
