/// Decodes a VP8 key frame (RFC 6386) to its Y, U and V planes: per macroblock row, the prediction
/// records from the first partition and the coefficients from a token partition, then intra
/// prediction and inverse transforms, then the loop filter over the row.
///
/// Prediction reads unfiltered neighbours (RFC 6386 §12): the row above comes from `top`, saved
/// before that row was filtered, the column to the left from the plane (its row is filtered only
/// after all of its macroblocks are reconstructed).
enum VP8Decoder {
    /// The decoded planes, sized to whole macroblocks: luma `16·columns × 16·rows`, chroma half that.
    struct Planes {
        var width: Int, height: Int
        var luma: [UInt8], u: [UInt8], v: [UInt8]
        var lumaStride: Int, chromaStride: Int
    }

    /// Decodes a `VP8 ` chunk's payload and converts it to RGBA (alpha 255).
    static func decodeRGBA(_ data: UnsafeBufferPointer<UInt8>, limits: DecodingLimits, threads: Int) throws(WebPError) -> [UInt8] {
        VP8Upsampler.rgba(try decodePlanes(data), threads: threads)
    }

    /// Decodes a `VP8 ` chunk's payload to its planes.
    static func decodePlanes(_ data: UnsafeBufferPointer<UInt8>) throws(WebPError) -> Planes {
        let header = try VP8FrameHeader(data)
        let columns = (header.width + 15) >> 4, rows = (header.height + 15) >> 4
        // Each macroblock costs at least 1.65 bits of the first partition (its luma and chroma modes).
        guard header.firstPartitionSize * 8 + 64 >= columns * rows * 3 / 2 else {
            throw .invalidLossyHeader(reason: "the first partition's \(header.firstPartitionSize) bytes cannot hold the modes of \(columns * rows) macroblocks")
        }
        let firstEnd = VP8FrameHeader.size + header.firstPartitionSize
        var modesReader = VP8BoolDecoder(UnsafeBufferPointer(rebasing: data[VP8FrameHeader.size ..< firstEnd]))
        let parameters = try VP8FrameParameters(&modesReader)
        var partitions = try tokenPartitions(UnsafeBufferPointer(rebasing: data[firstEnd...]), count: parameters.partitionCount)
        var planes = Planes(width: header.width, height: header.height, luma: [UInt8](repeating: 0, count: columns * rows * 256),
                            u: [UInt8](repeating: 0, count: columns * rows * 64), v: [UInt8](repeating: 0, count: columns * rows * 64),
                            lumaStride: columns * 16, chromaStride: columns * 8)
        let frame = VP8FrameState(columns: columns, rows: rows, parameters: parameters)
        try planes.luma.withUnsafeMutableBufferPointer { (luma) throws(WebPError) in
            try planes.u.withUnsafeMutableBufferPointer { (u) throws(WebPError) in
                try planes.v.withUnsafeMutableBufferPointer { (v) throws(WebPError) in
                    let target = VP8PlanePointers(luma: luma.baseAddress.unsafelyUnwrapped, u: u.baseAddress.unsafelyUnwrapped,
                                                  v: v.baseAddress.unsafelyUnwrapped, lumaStride: columns * 16, chromaStride: columns * 8)
                    try frame.decodeRows(&modesReader, &partitions, into: target)
                }
            }
        }
        return planes
    }

    /// Splits the data after the first partition into `count` token partitions: `count - 1` 3-byte
    /// sizes, then the partitions, the last taking the rest (RFC 6386 §9.5). Sizes past the data are
    /// cut to it, as libwebp does; the last partition must not be empty.
    private static func tokenPartitions(_ data: UnsafeBufferPointer<UInt8>, count: Int) throws(WebPError) -> [VP8BoolDecoder] {
        let sizesLength = 3 * (count - 1)
        guard data.count >= sizesLength else {
            throw .invalidLossyHeader(reason: "the data ends inside the sizes of the \(count) token partitions")
        }
        var partitions: [VP8BoolDecoder] = []
        var start = sizesLength
        for p in 0 ..< count - 1 {
            let size = min(Int(data[3 * p]) | Int(data[3 * p + 1]) << 8 | Int(data[3 * p + 2]) << 16, data.count - start)
            partitions.append(VP8BoolDecoder(UnsafeBufferPointer(rebasing: data[start ..< start + size])))
            start += size
        }
        guard start < data.count else { throw .invalidLossyHeader(reason: "the last token partition is empty") }
        partitions.append(VP8BoolDecoder(UnsafeBufferPointer(rebasing: data[start...])))
        return partitions
    }
}

/// Where the planes being decoded live: pixel (0, 0) of each and the row strides in bytes.
struct VP8PlanePointers {
    let luma: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>
    let lumaStride: Int, chromaStride: Int
}

/// The working state of one frame's macroblock rows: the unfiltered rows saved for prediction, the
/// coefficient buffer, the per-row modes and filter strengths, and the readers' contexts.
final class VP8FrameState {
    let columns: Int, rows: Int
    let parameters: VP8FrameParameters
    /// Unfiltered bottom pixel rows of the macroblock row above (luma, U, V).
    private let topLuma: UnsafeMutablePointer<UInt8>, topU: UnsafeMutablePointer<UInt8>, topV: UnsafeMutablePointer<UInt8>
    /// The 25 coefficient blocks of the macroblock being decoded.
    private let coefficients = UnsafeMutablePointer<Int16>.allocate(capacity: 25 * 16)
    private let work = VP8MacroblockWorkspace()
    private let residuals: VP8Residuals
    /// Filter strength of each (segment, has subblock modes) pair; nil when the frame is not filtered.
    private let strengths: [[VP8LoopFilter.Strength]]?

    init(columns: Int, rows: Int, parameters: VP8FrameParameters) {
        self.columns = columns
        self.rows = rows
        self.parameters = parameters
        topLuma = .allocate(capacity: columns * 16)
        topU = .allocate(capacity: columns * 8)
        topV = .allocate(capacity: columns * 8)
        residuals = VP8Residuals(macroblocksPerRow: columns, probabilities: parameters.coefficientProbabilities)
        // libwebp filters nothing when the frame level is 0, whatever the segments say.
        strengths = parameters.filter.level == 0 ? nil : (0 ..< 4).map { segment in
            [false, true].map { VP8LoopFilter.strength(parameters, segment: segment, hasSubblockModes: $0) }
        }
    }

    deinit {
        topLuma.deallocate()
        topU.deallocate()
        topV.deallocate()
        coefficients.deallocate()
    }

    func decodeRows(_ modesReader: inout VP8BoolDecoder, _ partitions: inout [VP8BoolDecoder], into planes: VP8PlanePointers) throws(WebPError) {
        var modeReader = VP8ModeReader(macroblocksPerRow: columns)
        var rowModes = [VP8MacroblockModes](repeating: VP8MacroblockModes(), count: columns)
        var rowStrengths = [VP8LoopFilter.Strength](repeating: .none, count: columns)
        for y in 0 ..< rows {
            modeReader.readRow(&modesReader, parameters: parameters, into: &rowModes)
            guard !modesReader.isPastEnd else { throw .truncatedLossyData(partition: 0, row: y) }
            let partition = y & (partitions.count - 1)
            residuals.startRow()
            for x in 0 ..< columns {
                let modes = rowModes[x]
                var coded = false
                coefficients.update(repeating: 0, count: 25 * 16)
                if modes.skipsCoefficients {
                    residuals.skip(column: x, hasSubblockModes: modes.hasSubblockModes)
                } else {
                    coded = residuals.read(&partitions[partition], column: x, hasSubblockModes: modes.hasSubblockModes,
                                           quantizer: parameters.quantizers[modes.segment], into: coefficients)
                    guard !partitions[partition].isPastEnd else { throw .truncatedLossyData(partition: 1 + partition, row: y) }
                }
                reconstruct(modes: modes, x: x, y: y, planes: planes)
                if let strengths {
                    var strength = strengths[modes.segment][modes.hasSubblockModes ? 1 : 0]
                    strength.filtersInnerEdges = strength.filtersInnerEdges || coded
                    rowStrengths[x] = strength
                }
            }
            saveTopRows(y, planes: planes)
            if strengths != nil { filterRow(y, rowStrengths, planes: planes) }
        }
    }

    /// Predicts and reconstructs the macroblock at (`x`, `y`) in the workspace, then copies it to the planes.
    private func reconstruct(modes: VP8MacroblockModes, x: Int, y: Int, planes: VP8PlanePointers) {
        work.loadEdges(x: x, y: y, columns: columns, planes: planes, topLuma: topLuma, topU: topU, topV: topV)
        let stride = VP8MacroblockWorkspace.lumaStride
        if modes.hasSubblockModes {
            for i in 0 ..< 16 {
                let block = work.luma + (i >> 2) * 4 * stride + (i & 3) * 4
                VP8IntraPrediction.predictSubblock(block, stride: stride, mode: modes.subblockModes[i])
                Self.addResidual(coefficients + i * 16, to: block, stride: stride)
            }
        } else {
            VP8IntraPrediction.predictBlock(work.luma, stride: stride, size: 16, mode: modes.lumaMode, hasTop: y > 0, hasLeft: x > 0)
            for i in 0 ..< 16 {
                Self.addResidual(coefficients + i * 16, to: work.luma + (i >> 2) * 4 * stride + (i & 3) * 4, stride: stride)
            }
        }
        let chromaStride = VP8MacroblockWorkspace.chromaStride
        for (plane, origin) in [work.u, work.v].enumerated() {
            VP8IntraPrediction.predictBlock(origin, stride: chromaStride, size: 8, mode: modes.chromaMode, hasTop: y > 0, hasLeft: x > 0)
            for i in 0 ..< 4 {
                Self.addResidual(coefficients + (16 + plane * 4 + i) * 16, to: origin + (i >> 1) * 4 * chromaStride + (i & 1) * 4,
                                 stride: chromaStride)
            }
        }
        work.store(x: x, y: y, into: planes)
    }

    /// Adds a block's inverse transform: the full DCT when an AC coefficient is non-zero, the DC-only
    /// shortcut (same result) when only the DC is, nothing for an empty block.
    private static func addResidual(_ block: UnsafePointer<Int16>, to p: UnsafeMutablePointer<UInt8>, stride: Int) {
        let ac = UnsafeRawPointer(block).loadUnaligned(as: SIMD16<Int16>.self)
        var withoutDC = ac
        withoutDC[0] = 0
        if withoutDC != .zero {
            VP8Transform.addInverseDCT(block, to: p, stride: stride)
        } else if block[0] != 0 {
            VP8Transform.addInverseDC(block[0], to: p, stride: stride)
        }
    }

    /// Keeps the bottom pixel rows of macroblock row `y` before they are filtered.
    private func saveTopRows(_ y: Int, planes: VP8PlanePointers) {
        topLuma.update(from: planes.luma + (y * 16 + 15) * planes.lumaStride, count: planes.lumaStride)
        topU.update(from: planes.u + (y * 8 + 7) * planes.chromaStride, count: planes.chromaStride)
        topV.update(from: planes.v + (y * 8 + 7) * planes.chromaStride, count: planes.chromaStride)
    }

    /// Runs the loop filter over macroblock row `y`.
    private func filterRow(_ y: Int, _ rowStrengths: [VP8LoopFilter.Strength], planes: VP8PlanePointers) {
        let simple = parameters.filter.simple
        for x in 0 ..< columns where rowStrengths[x].limit > 0 {
            VP8LoopFilter.filterLuma(planes.luma + y * 16 * planes.lumaStride + x * 16, stride: planes.lumaStride,
                                     x: x, y: y, strength: rowStrengths[x], simple: simple)
            guard !simple else { continue }
            let offset = y * 8 * planes.chromaStride + x * 8
            VP8LoopFilter.filterChroma(planes.u + offset, planes.v + offset, stride: planes.chromaStride, x: x, y: y, strength: rowStrengths[x])
        }
    }
}
