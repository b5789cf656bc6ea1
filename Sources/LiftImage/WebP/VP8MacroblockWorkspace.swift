/// A macroblock being reconstructed, with the unfiltered pixels its prediction reads around it.
///
/// Luma: rows -1…15, columns -1…19 (16 pixels, the corner, the column to the left, and above-right
/// the 4 pixels of the next macroblock's bottom row, which the right-hand subblocks of every subblock
/// row use, RFC 6386 §12.3; they are copied into rows 3, 7 and 11 so each subblock finds its
/// above-right pixels where it expects them). Chroma: rows -1…7, columns -1…7, per plane.
/// Above the frame the edge is 127, left of it 129.
struct VP8MacroblockWorkspace {
    static let lumaStride = 32
    static let chromaStride = 16
    /// Index of luma pixel (0, 0): one row and eight columns in.
    private static let lumaOrigin = lumaStride + 8
    /// Index of chroma pixel (0, 0) in each chroma plane.
    private static let chromaOrigin = chromaStride + 4

    private var luma = [UInt8](repeating: 0, count: lumaStride * 17)
    private var u = [UInt8](repeating: 0, count: chromaStride * 9)
    private var v = [UInt8](repeating: 0, count: chromaStride * 9)

    /// Calls `body` with pointers to pixel (0, 0) of the luma, U and V blocks.
    mutating func withPointers(_ body: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Void) {
        luma.withUnsafeMutableBufferPointer { luma in
            u.withUnsafeMutableBufferPointer { u in
                v.withUnsafeMutableBufferPointer { v in
                    body(luma.baseAddress.unsafelyUnwrapped + Self.lumaOrigin, u.baseAddress.unsafelyUnwrapped + Self.chromaOrigin,
                         v.baseAddress.unsafelyUnwrapped + Self.chromaOrigin)
                }
            }
        }
    }

    /// Fills the edges of macroblock (`x`, `y`): above from the saved unfiltered rows, left from the
    /// planes (the current row is not filtered yet).
    mutating func loadEdges(x: Int, y: Int, columns: Int, planes: VP8Decoder.Planes, topLuma: [UInt8], topU: [UInt8], topV: [UInt8]) {
        let ls = Self.lumaStride, lo = Self.lumaOrigin
        if y == 0 {
            for i in -1 ..< 20 { luma[lo - ls + i] = 127 }
        } else {
            luma[lo - ls - 1] = x > 0 ? topLuma[x * 16 - 1] : 129
            for i in 0 ..< 16 { luma[lo - ls + i] = topLuma[x * 16 + i] }
            for i in 16 ..< 20 { luma[lo - ls + i] = x + 1 < columns ? topLuma[x * 16 + i] : topLuma[x * 16 + 15] }
        }
        for row in [3, 7, 11] {
            for i in 16 ..< 20 { luma[lo + row * ls + i] = luma[lo - ls + i] }
        }
        for row in 0 ..< 16 {
            luma[lo + row * ls - 1] = x > 0 ? planes.luma[(y * 16 + row) * planes.lumaStride + x * 16 - 1] : 129
        }
        Self.loadChromaEdges(&u, x: x, y: y, plane: planes.u, stride: planes.chromaStride, top: topU)
        Self.loadChromaEdges(&v, x: x, y: y, plane: planes.v, stride: planes.chromaStride, top: topV)
    }

    private static func loadChromaEdges(_ block: inout [UInt8], x: Int, y: Int, plane: [UInt8], stride: Int, top: [UInt8]) {
        let cs = chromaStride, co = chromaOrigin
        if y == 0 {
            for i in -1 ..< 8 { block[co - cs + i] = 127 }
        } else {
            block[co - cs - 1] = x > 0 ? top[x * 8 - 1] : 129
            for i in 0 ..< 8 { block[co - cs + i] = top[x * 8 + i] }
        }
        for row in 0 ..< 8 {
            block[co + row * cs - 1] = x > 0 ? plane[(y * 8 + row) * stride + x * 8 - 1] : 129
        }
    }

    /// Copies the reconstructed macroblock into the planes at (`x`, `y`).
    func store(x: Int, y: Int, into planes: inout VP8Decoder.Planes) {
        for row in 0 ..< 16 {
            let target = (y * 16 + row) * planes.lumaStride + x * 16, source = Self.lumaOrigin + row * Self.lumaStride
            planes.luma.replaceSubrange(target ..< target + 16, with: luma[source ..< source + 16])
        }
        for row in 0 ..< 8 {
            let target = (y * 8 + row) * planes.chromaStride + x * 8, source = Self.chromaOrigin + row * Self.chromaStride
            planes.u.replaceSubrange(target ..< target + 8, with: u[source ..< source + 8])
            planes.v.replaceSubrange(target ..< target + 8, with: v[source ..< source + 8])
        }
    }
}
