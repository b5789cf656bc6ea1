/// Brings one component's sample plane to full resolution one output row at a time, choosing the
/// method as libjpeg-turbo's jdsample.c does with fancy upsampling on (its default):
/// triangle filters for 2x1, 1x2 and 2x2 ratios, sample replication for every other integral ratio.
/// Edges repeat the component's last real column and row, as libjpeg's context rows do.
struct JPEGComponentUpsampler {
    enum Method: Equatable {
        /// The component is full size: rows are read straight from the plane.
        case fullSize
        /// Horizontal 2x, interpolating 3/4 nearer + 1/4 farther sample (`h2v1_fancy_upsample`).
        case h2v1Fancy
        /// Vertical 2x, the same filter between rows (`h1v2_fancy_upsample`).
        case h1v2Fancy
        /// Both directions 2x, the separable triangle filter (`h2v2_fancy_upsample`).
        case h2v2Fancy
        /// Replication by integral factors (`int_upsample`, and `h2v1/h2v2_upsample` for narrow images).
        case replicate(h: Int, v: Int)
    }

    let method: Method
    let plane: UnsafePointer<UInt8>
    let stride: Int
    /// Real samples per row and rows of the component.
    let width: Int, height: Int
    /// Row buffer for methods that compute their rows, at least the output width.
    let scratch: UnsafeMutablePointer<UInt8>
    /// Column sums of the 2x2 filter, at least `width` entries.
    let columnSums: UnsafeMutablePointer<Int16>

    /// Chooses the method for a component with sampling `h x v` in a frame with maxima `hMax x vMax`.
    static func method(h: Int, v: Int, hMax: Int, vMax: Int, downsampledWidth: Int) -> Method {
        let hr = hMax / h, vr = vMax / v
        switch (hr, vr) {
        case (1, 1): return .fullSize
        case (2, 1) where downsampledWidth > 2: return .h2v1Fancy
        case (1, 2): return .h1v2Fancy
        case (2, 2) where downsampledWidth > 2: return .h2v2Fancy
        default: return .replicate(h: hr, v: vr)
        }
    }

    /// The samples of full-resolution row `y` (at least the frame width of them).
    @inline(__always)
    func row(_ y: Int) -> UnsafePointer<UInt8> {
        switch method {
        case .fullSize:
            return plane + y &* stride
        case .h2v1Fancy:
            h2v1(plane + y &* stride)
        case .h1v2Fancy:
            let (near, far) = rowPair(y)
            let bias: Int32 = y & 1 == 0 ? 1 : 2
            for x in 0 ..< width {
                scratch[x] = UInt8(truncatingIfNeeded: (3 &* Int32(near[x]) &+ Int32(far[x]) &+ bias) &>> 2)
            }
        case .h2v2Fancy:
            let (near, far) = rowPair(y)
            h2v2(near, far)
        case let .replicate(h, v):
            let source = plane + (y / v) &* stride
            if h == 1 { return source }
            var x = 0
            for c in 0 ..< width {
                let sample = source[c]
                for _ in 0 ..< h { scratch[x] = sample; x &+= 1 }
            }
        }
        return UnsafePointer(scratch)
    }

    /// For vertical 2x: the input row of output row `y` and its nearer neighbour (above for even
    /// `y`, below for odd), clamped to the component's real rows.
    @inline(__always)
    private func rowPair(_ y: Int) -> (UnsafePointer<UInt8>, UnsafePointer<UInt8>) {
        let inner = y &>> 1
        let neighbour = y & 1 == 0 ? max(inner &- 1, 0) : min(inner &+ 1, height &- 1)
        return (plane + inner &* stride, plane + neighbour &* stride)
    }

    /// Stores an even and an odd output sample as one little-endian pair at `out[2c]`, `out[2c+1]`
    /// (a shape LLVM vectorises; Swift's SIMD conversions would be out-of-line calls).
    @inline(__always) private static func storePair(_ even: Int32, _ odd: Int32, _ out: UnsafeMutablePointer<UInt8>, _ c: Int) {
        UnsafeMutableRawPointer(out).storeBytes(of: UInt16(truncatingIfNeeded: even | odd &<< 8), toByteOffset: 2 &* c, as: UInt16.self)
    }

    @inline(__always)
    private func h2v1(_ input: UnsafePointer<UInt8>) {
        let out = scratch, last = width &- 1
        out[0] = input[0]
        out[1] = UInt8(truncatingIfNeeded: (Int32(input[0]) &* 3 &+ Int32(input[1]) &+ 2) &>> 2)
        for c in 1 ..< last {
            let here = Int32(input[c]) &* 3
            Self.storePair((here &+ Int32(input[c &- 1]) &+ 1) &>> 2, (here &+ Int32(input[c &+ 1]) &+ 2) &>> 2, out, c)
        }
        out[2 &* last] = UInt8(truncatingIfNeeded: (Int32(input[last]) &* 3 &+ Int32(input[last &- 1]) &+ 1) &>> 2)
        out[2 &* last &+ 1] = input[last]
    }

    @inline(__always)
    private func h2v2(_ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>) {
        let out = scratch, sums = columnSums, last = width &- 1
        for c in 0 ..< width { sums[c] = Int16(near[c]) &* 3 &+ Int16(far[c]) }
        out[0] = UInt8(truncatingIfNeeded: (sums[0] &* 4 &+ 8) &>> 4)
        out[1] = UInt8(truncatingIfNeeded: (sums[0] &* 3 &+ sums[1] &+ 7) &>> 4)
        for c in 1 ..< last {
            let here = Int32(sums[c]) &* 3
            Self.storePair((here &+ Int32(sums[c &- 1]) &+ 8) &>> 4, (here &+ Int32(sums[c &+ 1]) &+ 7) &>> 4, out, c)
        }
        out[2 &* last] = UInt8(truncatingIfNeeded: (sums[last] &* 3 &+ sums[last &- 1] &+ 8) &>> 4)
        out[2 &* last &+ 1] = UInt8(truncatingIfNeeded: (sums[last] &* 4 &+ 7) &>> 4)
    }
}
