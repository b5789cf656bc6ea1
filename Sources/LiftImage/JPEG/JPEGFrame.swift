/// The frame header (SOFn) with the block geometry libjpeg derives from it.
struct JPEGFrame {
    /// One component: sampling, quantisation table and block counts.
    struct Component {
        let id: UInt8
        /// Horizontal and vertical sampling factors (1…4).
        let h: Int, v: Int
        let quantTableID: Int
        /// Samples per line and lines of this component: `ceil(width * h / hMax)` and likewise.
        var downsampledWidth = 0, downsampledHeight = 0
        /// Blocks holding real samples: `ceil(downsampledWidth / 8)` and likewise.
        var blocksPerLine = 0, blocksPerColumn = 0
        /// Blocks including the MCU padding of interleaved scans: `mcusPerLine * h` and likewise.
        var paddedBlocksPerLine = 0, paddedBlocksPerColumn = 0
    }

    /// Offset of the SOF marker's `FF`, and its code (for messages).
    let offset: Int
    let markerCode: UInt8
    let process: JPEGInfo.Process
    let width: Int, height: Int
    var components: [Component]
    let hMax: Int, vMax: Int
    /// MCUs of an interleaved scan per line and per column.
    let mcusPerLine: Int, mcusPerColumn: Int

    var isProgressive: Bool { process == .progressive }

    init(offset: Int, markerCode: UInt8, process: JPEGInfo.Process, width: Int, height: Int, components: [Component]) {
        self.offset = offset
        self.markerCode = markerCode
        self.process = process
        self.width = width
        self.height = height
        let hMax = components.map(\.h).max() ?? 1
        let vMax = components.map(\.v).max() ?? 1
        self.hMax = hMax
        self.vMax = vMax
        let mcusPerLine = Self.ceilDiv(width, 8 * hMax), mcusPerColumn = Self.ceilDiv(height, 8 * vMax)
        self.mcusPerLine = mcusPerLine
        self.mcusPerColumn = mcusPerColumn
        self.components = components.map { c in
            var c = c
            c.downsampledWidth = Self.ceilDiv(width * c.h, hMax)
            c.downsampledHeight = Self.ceilDiv(height * c.v, vMax)
            c.blocksPerLine = Self.ceilDiv(c.downsampledWidth, 8)
            c.blocksPerColumn = Self.ceilDiv(c.downsampledHeight, 8)
            c.paddedBlocksPerLine = mcusPerLine * c.h
            c.paddedBlocksPerColumn = mcusPerColumn * c.v
            return c
        }
    }

    static func ceilDiv(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }
}

/// A scan header (SOS): which components, which tables, and the progression parameters.
struct JPEGScan {
    /// Offset of the SOS marker's `FF`.
    let offset: Int
    /// Indices into `JPEGFrame.components`, in scan order.
    let componentIndices: [Int]
    let dcTables: [JPEGHuffmanTable?]
    let acTables: [JPEGHuffmanTable?]
    /// Spectral selection start and end (0…63).
    let spectralStart: Int, spectralEnd: Int
    /// Successive approximation high and low bit positions.
    let approximationHigh: Int, approximationLow: Int
    /// Offset of the first entropy-coded byte.
    let dataOffset: Int

    /// A lower bound on the entropy-coded bits of this scan: every Huffman code is at least one bit
    /// long, a sequential block holds a DC code and at least one AC code (EOB or a coefficient), and a
    /// progressive DC scan one DC code or refinement bit per block; progressive AC scans can cover
    /// many blocks with one end-of-band run, so they count nothing (which is why `JPEGProgression` refuses
    /// an AC scan before its component's DC scan: a first scan always counts).
    func minimumBits(frame: JPEGFrame) -> Int {
        let bitsPerBlock = frame.isProgressive ? (spectralStart == 0 ? 1 : 0) : 2
        return componentIndices.reduce(0) { bits, index in
            let c = frame.components[index]
            return bits + c.blocksPerLine * c.blocksPerColumn * bitsPerBlock
        }
    }
}

/// Per-component sample planes (and, for progressive frames, coefficients) of one frame.
///
/// Plane `c` is `paddedBlocksPerLine * 8` samples wide (its stride) and `paddedBlocksPerColumn * 8`
/// lines high; coefficients are `Int16` blocks of 64 in natural (row-major) order, block-row-major.
/// Allocated once after the limits are checked and freed on deinit.
final class JPEGFrameStorage {
    let planes: [UnsafeMutablePointer<UInt8>]
    let strides: [Int]
    let coefficients: [UnsafeMutablePointer<Int16>]

    /// Allocates zeroed planes for every component, and coefficients when `withCoefficients`.
    init(frame: JPEGFrame, withCoefficients: Bool) {
        var planes: [UnsafeMutablePointer<UInt8>] = []
        var strides: [Int] = []
        var coefficients: [UnsafeMutablePointer<Int16>] = []
        for c in frame.components {
            let blocks = c.paddedBlocksPerLine * c.paddedBlocksPerColumn
            let plane = UnsafeMutablePointer<UInt8>.allocate(capacity: blocks * 64)
            plane.initialize(repeating: 128, count: blocks * 64)
            planes.append(plane)
            strides.append(c.paddedBlocksPerLine * 8)
            if withCoefficients {
                let coefs = UnsafeMutablePointer<Int16>.allocate(capacity: blocks * 64)
                coefs.initialize(repeating: 0, count: blocks * 64)
                coefficients.append(coefs)
            }
        }
        self.planes = planes
        self.strides = strides
        self.coefficients = coefficients
    }

    /// Bytes `init` would allocate for `frame`, or nil on overflow.
    static func byteCount(frame: JPEGFrame, withCoefficients: Bool) -> Int? {
        var total = 0
        for c in frame.components {
            let (blocks, o1) = c.paddedBlocksPerLine.multipliedReportingOverflow(by: c.paddedBlocksPerColumn)
            let (samples, o2) = blocks.multipliedReportingOverflow(by: withCoefficients ? 64 * 3 : 64)
            let (sum, o3) = total.addingReportingOverflow(samples)
            if o1 || o2 || o3 { return nil }
            total = sum
        }
        return total
    }

    deinit {
        planes.forEach { $0.deallocate() }
        coefficients.forEach { $0.deallocate() }
    }
}
