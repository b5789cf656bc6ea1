import LiftImage
import LiftTensor

/// A reduced grid of s×s blocks over a photo, where smooth quantities (blurred colours, filter
/// coefficients) are computed cheaply and then read back at full resolution by bilinear
/// interpolation with block centres aligned (full pixel `X` reads block position `(X + 0.5)/s - 0.5`).
struct WorkingResolution {
    /// Photo width and height.
    let width: Int, height: Int
    /// Block side s.
    let block: Int
    /// Reduced grid size, ⌈width/s⌉ × ⌈height/s⌉.
    let lowWidth: Int, lowHeight: Int
    /// Bilinear taps from photo columns and rows into the grid.
    let columns: BilinearTaps, rows: BilinearTaps

    init(width: Int, height: Int, block: Int) {
        self.width = width
        self.height = height
        self.block = block
        lowWidth = (width + block - 1) / block
        lowHeight = (height + block - 1) / block
        let scale = 1 / Double(block)
        columns = BilinearTaps(count: width, sourceCount: lowWidth, scale: scale, offset: 0.5 * scale - 0.5)
        rows = BilinearTaps(count: height, sourceCount: lowHeight, scale: scale, offset: 0.5 * scale - 0.5)
    }

    /// Pixels of the reduced grid.
    var lowCount: Int { lowWidth * lowHeight }

    /// A radius in photo pixels expressed on the grid (at least 1).
    func lowRadius(_ radius: Double) -> Int { max(1, Int((radius / Double(block)).rounded())) }

    /// Bilinear sample of three consecutive planes (`planes`, `+n`, `+2n`) at photo pixel (x, y); lane 3 is 0.
    @inline(__always)
    func sample3(_ planes: UnsafePointer<Float>, x: Int, y: Int) -> SIMD4<Float> {
        sample(planes, x: x, y: y, planeCount: 3)
    }

    /// Bilinear sample of four consecutive planes (`planes` … `+3n`) at photo pixel (x, y).
    @inline(__always)
    func sample4(_ planes: UnsafePointer<Float>, x: Int, y: Int) -> SIMD4<Float> {
        sample(planes, x: x, y: y, planeCount: 4)
    }

    @inline(__always)
    private func sample(_ planes: UnsafePointer<Float>, x: Int, y: Int, planeCount: Int) -> SIMD4<Float> {
        let n = lowCount
        let i00 = rows.first[y] &* lowWidth &+ columns.first[x], i01 = rows.first[y] &* lowWidth &+ columns.second[x]
        let i10 = rows.second[y] &* lowWidth &+ columns.first[x], i11 = rows.second[y] &* lowWidth &+ columns.second[x]
        @inline(__always) func load(_ i: Int) -> SIMD4<Float> {
            SIMD4(planes[i], planes[n &+ i], planes[2 &* n &+ i], planeCount == 4 ? planes[3 &* n &+ i] : 0)
        }
        let wx = columns.weight[x], wy = rows.weight[y]
        let top = load(i00) + wx * (load(i01) - load(i00))
        let bottom = load(i10) + wx * (load(i11) - load(i10))
        return top + wy * (bottom - top)
    }
}
