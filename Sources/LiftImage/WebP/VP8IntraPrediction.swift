/// Intra prediction of VP8 key frames (RFC 6386 §12): 16×16 luma and 8×8 chroma blocks (DC, V, H,
/// TM) and 4×4 luma subblocks (ten modes). Each function fills the block at `p` (row stride
/// `stride`) from the already reconstructed, unfiltered pixels around it: the row above at
/// `p - stride` (for subblocks 8 pixels: 4 above, 4 above-right), the column at `p - 1`, and the
/// corner at `p - stride - 1`. The caller puts 127 above the frame and 129 left of it there.
enum VP8IntraPrediction {
    /// Fills a `size × size` block (16 luma, 8 chroma) with `mode`; DC uses only the edges that lie
    /// inside the frame (`hasTop`, `hasLeft`), 128 with neither.
    static func predictBlock(_ p: UnsafeMutablePointer<UInt8>, stride: Int, size: Int, mode: UInt8, hasTop: Bool, hasLeft: Bool) {
        let above = p - stride
        switch mode {
        case VP8MacroblockModes.vertical:
            for y in 0 ..< size { (p + y * stride).update(from: above, count: size) }
        case VP8MacroblockModes.horizontal:
            for y in 0 ..< size { (p + y * stride).update(repeating: p[y * stride - 1], count: size) }
        case VP8MacroblockModes.trueMotion:
            trueMotion(p, stride: stride, size: size)
        default:
            let shift = size == 16 ? 4 : 3
            var sum = 0, value = 128
            if hasTop { for x in 0 ..< size { sum += Int(above[x]) } }
            if hasLeft { for y in 0 ..< size { sum += Int(p[y * stride - 1]) } }
            if hasTop && hasLeft {
                value = (sum + size) >> (shift + 1)
            } else if hasTop || hasLeft {
                value = (sum + size / 2) >> shift
            }
            for y in 0 ..< size { (p + y * stride).update(repeating: UInt8(value), count: size) }
        }
    }

    /// TM_PRED: `left[y] + above[x] - corner`, clamped to 0…255.
    private static func trueMotion(_ p: UnsafeMutablePointer<UInt8>, stride: Int, size: Int) {
        let above = p - stride
        let corner = Int(above[-1])
        for y in 0 ..< size {
            let left = Int(p[y * stride - 1]) - corner
            let row = p + y * stride
            for x in 0 ..< size { row[x] = clamp255(left + Int(above[x])) }
        }
    }

    @inline(__always)
    static func clamp255(_ v: Int) -> UInt8 { UInt8(min(max(v, 0), 255)) }

    @inline(__always)
    private static func average3(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        UInt8((Int(a) + 2 * Int(b) + Int(c) + 2) >> 2)
    }

    @inline(__always)
    private static func average2(_ a: UInt8, _ b: UInt8) -> UInt8 {
        UInt8((Int(a) + Int(b) + 1) >> 1)
    }

    /// Fills a 4×4 subblock with subblock `mode` (RFC 6386 §12.3).
    static func predictSubblock(_ p: UnsafeMutablePointer<UInt8>, stride: Int, mode: UInt8) {
        typealias Mode = VP8MacroblockModes.Subblock
        let a = p - stride           // a[-1] corner, a[0...7] above and above-right
        let l0 = p[-1], l1 = p[stride - 1], l2 = p[2 * stride - 1], l3 = p[3 * stride - 1]
        let corner = a[-1]
        // The edge from bottom-left to top-right: L3 L2 L1 L0 P A0 A1 A2 A3 (RFC 6386's E).
        let e: [UInt8] = [l3, l2, l1, l0, corner, a[0], a[1], a[2], a[3]]
        func set(_ y: Int, _ x: Int, _ v: UInt8) { p[y * stride + x] = v }
        switch mode {
        case Mode.dc:
            var sum = 4
            for i in 0 ..< 4 { sum += Int(a[i]) }
            sum += Int(l0) + Int(l1) + Int(l2) + Int(l3)
            for y in 0 ..< 4 { (p + y * stride).update(repeating: UInt8(sum >> 3), count: 4) }
        case Mode.trueMotion:
            trueMotion(p, stride: stride, size: 4)
        case Mode.vertical:
            for x in 0 ..< 4 {
                let v = average3(a[x - 1], a[x], a[x + 1])
                for y in 0 ..< 4 { set(y, x, v) }
            }
        case Mode.horizontal:
            let rows = [average3(corner, l0, l1), average3(l0, l1, l2), average3(l1, l2, l3), average3(l2, l3, l3)]
            for y in 0 ..< 4 { (p + y * stride).update(repeating: rows[y], count: 4) }
        case Mode.downLeft:
            for y in 0 ..< 4 {
                for x in 0 ..< 4 {
                    let i = x + y
                    set(y, x, i < 6 ? average3(a[i], a[i + 1], a[i + 2]) : average3(a[6], a[7], a[7]))
                }
            }
        case Mode.downRight:
            // Pixel (y, x) lies on the diagonal through e[4 - y + x].
            for y in 0 ..< 4 {
                for x in 0 ..< 4 {
                    let i = 4 - y + x
                    set(y, x, average3(e[i - 1], e[i], e[i + 1]))
                }
            }
        case Mode.verticalRight:
            set(3, 0, average3(e[1], e[2], e[3]))
            set(2, 0, average3(e[2], e[3], e[4]))
            set(3, 1, average3(e[3], e[4], e[5])); set(1, 0, average3(e[3], e[4], e[5]))
            set(2, 1, average2(e[4], e[5])); set(0, 0, average2(e[4], e[5]))
            set(3, 2, average3(e[4], e[5], e[6])); set(1, 1, average3(e[4], e[5], e[6]))
            set(2, 2, average2(e[5], e[6])); set(0, 1, average2(e[5], e[6]))
            set(3, 3, average3(e[5], e[6], e[7])); set(1, 2, average3(e[5], e[6], e[7]))
            set(2, 3, average2(e[6], e[7])); set(0, 2, average2(e[6], e[7]))
            set(1, 3, average3(e[6], e[7], e[8]))
            set(0, 3, average2(e[7], e[8]))
        case Mode.verticalLeft:
            set(0, 0, average2(a[0], a[1]))
            set(1, 0, average3(a[0], a[1], a[2]))
            set(2, 0, average2(a[1], a[2])); set(0, 1, average2(a[1], a[2]))
            set(1, 1, average3(a[1], a[2], a[3])); set(3, 0, average3(a[1], a[2], a[3]))
            set(2, 1, average2(a[2], a[3])); set(0, 2, average2(a[2], a[3]))
            set(3, 1, average3(a[2], a[3], a[4])); set(1, 2, average3(a[2], a[3], a[4]))
            set(2, 2, average2(a[3], a[4])); set(0, 3, average2(a[3], a[4]))
            set(3, 2, average3(a[3], a[4], a[5])); set(1, 3, average3(a[3], a[4], a[5]))
            set(2, 3, average3(a[4], a[5], a[6]))
            set(3, 3, average3(a[5], a[6], a[7]))
        case Mode.horizontalDown:
            set(3, 0, average2(e[0], e[1]))
            set(3, 1, average3(e[0], e[1], e[2]))
            set(2, 0, average2(e[1], e[2])); set(3, 2, average2(e[1], e[2]))
            set(2, 1, average3(e[1], e[2], e[3])); set(3, 3, average3(e[1], e[2], e[3]))
            set(2, 2, average2(e[2], e[3])); set(1, 0, average2(e[2], e[3]))
            set(2, 3, average3(e[2], e[3], e[4])); set(1, 1, average3(e[2], e[3], e[4]))
            set(1, 2, average2(e[3], e[4])); set(0, 0, average2(e[3], e[4]))
            set(1, 3, average3(e[3], e[4], e[5])); set(0, 1, average3(e[3], e[4], e[5]))
            set(0, 2, average3(e[4], e[5], e[6]))
            set(0, 3, average3(e[5], e[6], e[7]))
        default: // horizontal up
            set(0, 0, average2(l0, l1))
            set(0, 1, average3(l0, l1, l2))
            set(0, 2, average2(l1, l2)); set(1, 0, average2(l1, l2))
            set(0, 3, average3(l1, l2, l3)); set(1, 1, average3(l1, l2, l3))
            set(1, 2, average2(l2, l3)); set(2, 0, average2(l2, l3))
            set(1, 3, average3(l2, l3, l3)); set(2, 1, average3(l2, l3, l3))
            set(2, 2, l3); set(2, 3, l3); set(3, 0, l3); set(3, 1, l3); set(3, 2, l3); set(3, 3, l3)
        }
    }
}
