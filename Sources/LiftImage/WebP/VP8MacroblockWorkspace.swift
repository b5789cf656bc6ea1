/// A macroblock being reconstructed, with the unfiltered pixels its prediction reads around it.
///
/// Luma: rows -1…15, columns -1…19 (16 pixels, the corner, the column to the left, and above-right
/// the 4 pixels of the next macroblock's bottom row, which the right-hand subblocks of every subblock
/// row use, RFC 6386 §12.3; they are copied into rows 3, 7 and 11 so each subblock finds its
/// above-right pixels where it expects them). Chroma: rows -1…7, columns -1…7, per plane.
/// Above the frame the edge is 127, left of it 129.
final class VP8MacroblockWorkspace {
    static let lumaStride = 32
    static let chromaStride = 16

    private let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: lumaStride * 17 + 2 * chromaStride * 9)
    /// Luma pixel (0, 0): one row and eight columns into the storage.
    let luma: UnsafeMutablePointer<UInt8>
    /// U and V pixel (0, 0).
    let u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>

    init() {
        storage.initialize(repeating: 0, count: Self.lumaStride * 17 + 2 * Self.chromaStride * 9)
        luma = storage + Self.lumaStride + 8
        u = storage + Self.lumaStride * 17 + Self.chromaStride + 4
        v = u + Self.chromaStride * 9
    }

    deinit { storage.deallocate() }

    /// Fills the edges of macroblock (`x`, `y`): above from the saved unfiltered rows, left from the
    /// planes (the current row is not filtered yet).
    func loadEdges(x: Int, y: Int, columns: Int, planes: VP8PlanePointers, topLuma: UnsafePointer<UInt8>,
                   topU: UnsafePointer<UInt8>, topV: UnsafePointer<UInt8>) {
        let ls = Self.lumaStride
        let above = luma - ls
        if y == 0 {
            (above - 1).update(repeating: 127, count: 21)
        } else {
            above[-1] = x > 0 ? topLuma[x * 16 - 1] : 129
            above.update(from: topLuma + x * 16, count: 16)
            if x + 1 < columns {
                (above + 16).update(from: topLuma + x * 16 + 16, count: 4)
            } else {
                (above + 16).update(repeating: topLuma[x * 16 + 15], count: 4)
            }
        }
        for row in Swift.stride(from: 3, to: 12, by: 4) { (luma + row * ls + 16).update(from: above + 16, count: 4) }
        let left = planes.luma + y * 16 * planes.lumaStride + x * 16 - 1
        for row in 0 ..< 16 { luma[row * ls - 1] = x > 0 ? left[row * planes.lumaStride] : 129 }
        let chromaOffset = y * 8 * planes.chromaStride + x * 8
        Self.loadChromaEdges(u, x: x, y: y, left: planes.u + chromaOffset - 1, stride: planes.chromaStride, top: topU)
        Self.loadChromaEdges(v, x: x, y: y, left: planes.v + chromaOffset - 1, stride: planes.chromaStride, top: topV)
    }

    private static func loadChromaEdges(_ block: UnsafeMutablePointer<UInt8>, x: Int, y: Int, left: UnsafePointer<UInt8>,
                                        stride: Int, top: UnsafePointer<UInt8>) {
        let above = block - chromaStride
        if y == 0 {
            (above - 1).update(repeating: 127, count: 9)
        } else {
            above[-1] = x > 0 ? top[x * 8 - 1] : 129
            above.update(from: top + x * 8, count: 8)
        }
        for row in 0 ..< 8 { block[row * chromaStride - 1] = x > 0 ? left[row * stride] : 129 }
    }

    /// Copies the reconstructed macroblock into the planes at (`x`, `y`).
    func store(x: Int, y: Int, into planes: VP8PlanePointers) {
        let lumaTarget = planes.luma + y * 16 * planes.lumaStride + x * 16
        for row in 0 ..< 16 { (lumaTarget + row * planes.lumaStride).update(from: luma + row * Self.lumaStride, count: 16) }
        let chromaOffset = y * 8 * planes.chromaStride + x * 8
        for row in 0 ..< 8 {
            (planes.u + chromaOffset + row * planes.chromaStride).update(from: u + row * Self.chromaStride, count: 8)
            (planes.v + chromaOffset + row * planes.chromaStride).update(from: v + row * Self.chromaStride, count: 8)
        }
    }
}
