import LiftTensor

/// Mean filters over square windows on planar Float32 images, O(pixels) for any radius.
///
/// The window `(2r+1)²` is clipped at the image border and the sum divided by the number of pixels
/// actually inside (He et al.'s `boxfilter(...) ./ N`). Two separable passes of running sums:
/// along each row, then down row bands with a running row of column sums (SIMD across columns).
enum BoxFilter {
    /// Replaces `plane` (row-major `width × height`) by its box mean of `radius`.
    /// - Parameter scratch: at least `width * height` floats, overwritten.
    static func mean(_ plane: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>,
                     width: Int, height: Int, radius: Int, threads: Int) {
        guard width > 0, height > 0 else { return }
        nonisolated(unsafe) let plane = plane, scratch = scratch
        // Pass 1: horizontal window sums, plane → scratch; four rows at a time so four independent
        // running sums hide the add latency.
        Parallel.forEach(count: (height + 3) / 4, threads: threads, minimumPerPart: 4) { groups in
            for group in groups {
                let y = group &* 4
                if y &+ 4 <= height {
                    horizontalSums4(plane + y &* width, scratch + y &* width, width: width, radius: radius)
                } else {
                    for row in y ..< height { horizontalSums(plane + row &* width, scratch + row &* width, width: width, radius: radius) }
                }
            }
        }
        // Pass 2: vertical window sums of scratch, divided by the window's pixel count, → plane.
        let inverseColumnCounts = counts(width, radius).map { 1 / Float($0) }
        // Bands of fixed height restart the running sums, so results do not depend on the thread
        // count and rounding drift stays bounded.
        let bandRows = 64
        Parallel.forEach(count: (height + bandRows - 1) / bandRows, threads: threads) { bands in
            let accumulator = UnsafeMutablePointer<Float>.allocate(capacity: width)
            defer { accumulator.deallocate() }
            for band in bands {
                let rows = band &* bandRows ..< min((band &+ 1) &* bandRows, height)
                accumulator.initialize(repeating: 0, count: width)
                for y in max(rows.lowerBound - radius, 0) ... min(rows.lowerBound + radius, height - 1) {
                    add(scratch + y &* width, into: accumulator, width: width)
                }
                for y in rows {
                    let count = Float(min(y + radius, height - 1) - max(y - radius, 0) + 1)
                    scale(accumulator, by: 1 / count, columnScales: inverseColumnCounts, into: plane + y &* width, width: width)
                    let entering = y + radius + 1, leaving = y - radius
                    if entering < height { add(scratch + entering &* width, into: accumulator, width: width) }
                    if leaving >= 0 { subtract(scratch + leaving &* width, from: accumulator, width: width) }
                }
            }
        }
    }

    /// Pixels inside the clipped window at each index of a line of `length`.
    static func counts(_ length: Int, _ radius: Int) -> [Int] {
        (0 ..< length).map { min($0 + radius, length - 1) - max($0 - radius, 0) + 1 }
    }

    /// Window sums along one row, `src` → `dst`: the window's change at each step, vectorised, then
    /// a running sum over those changes in place.
    @inline(__always)
    private static func horizontalSums(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>,
                                       width: Int, radius: Int) {
        var sum = firstWindowSum(src, width: width, radius: radius)
        windowChanges(src, into: dst, width: width, radius: radius)
        for x in 0 ..< width {
            let change = dst[x]
            dst[x] = sum
            sum += change
        }
    }

    /// `horizontalSums` on four consecutive rows at once (rows `width` apart): four independent
    /// running sums, so the adds overlap instead of waiting on each other.
    @inline(__always)
    private static func horizontalSums4(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>,
                                        width: Int, radius: Int) {
        var sum0 = firstWindowSum(src, width: width, radius: radius)
        var sum1 = firstWindowSum(src + width, width: width, radius: radius)
        var sum2 = firstWindowSum(src + 2 &* width, width: width, radius: radius)
        var sum3 = firstWindowSum(src + 3 &* width, width: width, radius: radius)
        for row in 0 ..< 4 {
            windowChanges(src + row &* width, into: dst + row &* width, width: width, radius: radius)
        }
        let d1 = dst + width, d2 = dst + 2 &* width, d3 = dst + 3 &* width
        for x in 0 ..< width {
            let c0 = dst[x], c1 = d1[x], c2 = d2[x], c3 = d3[x]
            dst[x] = sum0; d1[x] = sum1; d2[x] = sum2; d3[x] = sum3
            sum0 += c0; sum1 += c1; sum2 += c2; sum3 += c3
        }
    }

    /// The sum of the window around x = 0.
    @inline(__always)
    private static func firstWindowSum(_ row: UnsafeMutablePointer<Float>, width: Int, radius: Int) -> Float {
        var sum: Float = 0
        for x in 0 ... min(radius, width - 1) { sum += row[x] }
        return sum
    }

    /// `changes[x]` = the window sum at x + 1 minus the one at x: the pixel entering (x + r + 1) minus
    /// the one leaving (x − r), each where it lies inside the row. SIMD over the middle of the row.
    @inline(__always)
    private static func windowChanges(_ src: UnsafeMutablePointer<Float>, into changes: UnsafeMutablePointer<Float>,
                                      width: Int, radius: Int) {
        let (enterEnd, leaveStart) = runningSumSpans(width: width, radius: radius)
        var x = 0
        while x < leaveStart {
            changes[x] = x < enterEnd ? src[x &+ radius &+ 1] : 0
            x &+= 1
        }
        while x &+ 16 <= enterEnd {
            let entering = UnsafeRawPointer(src + (x &+ radius &+ 1)).loadUnaligned(as: SIMD16<Float>.self)
            let leaving = UnsafeRawPointer(src + (x &- radius)).loadUnaligned(as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(changes + x).storeBytes(of: entering - leaving, as: SIMD16<Float>.self)
            x &+= 16
        }
        while x < enterEnd {
            changes[x] = src[x &+ radius &+ 1] - src[x &- radius]
            x &+= 1
        }
        while x < width {
            changes[x] = -src[x &- radius]
            x &+= 1
        }
    }

    /// After output `x`, a pixel enters the window while `x < enterEnd` and one leaves once
    /// `x >= radius`; returns `enterEnd` and where the leaving starts, `min(radius, width)`.
    @inline(__always)
    private static func runningSumSpans(width: Int, radius: Int) -> (enterEnd: Int, leaveStart: Int) {
        (max(width - radius - 1, 0), min(radius, width))
    }

    @inline(__always)
    private static func add(_ row: UnsafeMutablePointer<Float>, into accumulator: UnsafeMutablePointer<Float>, width: Int) {
        var x = 0
        while x &+ 16 <= width {
            let a = UnsafeRawPointer(accumulator + x).loadUnaligned(as: SIMD16<Float>.self)
            let r = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(accumulator + x).storeBytes(of: a + r, as: SIMD16<Float>.self)
            x &+= 16
        }
        while x < width { accumulator[x] += row[x]; x &+= 1 }
    }

    @inline(__always)
    private static func subtract(_ row: UnsafeMutablePointer<Float>, from accumulator: UnsafeMutablePointer<Float>, width: Int) {
        var x = 0
        while x &+ 16 <= width {
            let a = UnsafeRawPointer(accumulator + x).loadUnaligned(as: SIMD16<Float>.self)
            let r = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(accumulator + x).storeBytes(of: a - r, as: SIMD16<Float>.self)
            x &+= 16
        }
        while x < width { accumulator[x] -= row[x]; x &+= 1 }
    }

    @inline(__always)
    private static func scale(_ accumulator: UnsafeMutablePointer<Float>, by rowScale: Float, columnScales: [Float],
                              into out: UnsafeMutablePointer<Float>, width: Int) {
        columnScales.withUnsafeBufferPointer { columnScales in
            let columns = columnScales.nonEmptyBase
            var x = 0
            while x &+ 16 <= width {
                let a = UnsafeRawPointer(accumulator + x).loadUnaligned(as: SIMD16<Float>.self)
                let c = UnsafeRawPointer(columns + x).loadUnaligned(as: SIMD16<Float>.self)
                UnsafeMutableRawPointer(out + x).storeBytes(of: a * c * rowScale, as: SIMD16<Float>.self)
                x &+= 16
            }
            while x < width { out[x] = accumulator[x] * columns[x] * rowScale; x &+= 1 }
        }
    }
}
