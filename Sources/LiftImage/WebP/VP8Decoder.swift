/// Decodes a VP8 key frame (RFC 6386) to its Y, U and V planes: per macroblock row, the prediction
/// records from the first partition and the coefficients from a token partition, then intra
/// prediction and inverse transforms, then the loop filter over the row.
///
/// Prediction reads unfiltered neighbours (RFC 6386 §12): the row above comes from `top`, saved
/// before that row was filtered, the column to the left from the plane (its row is filtered only
/// after all of its macroblocks are reconstructed).
struct VP8Decoder {
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
        var decoder = VP8Decoder(columns: columns, rows: rows, parameters: parameters)
        decoder.planes.width = header.width
        decoder.planes.height = header.height
        try decoder.decodeRows(&modesReader, &partitions)
        return decoder.planes
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

    let columns: Int, rows: Int
    let parameters: VP8FrameParameters
    var planes: Planes
    /// Unfiltered bottom rows of the macroblock row above (luma, U, V).
    private var topLuma: [UInt8], topU: [UInt8], topV: [UInt8]
    /// Filter strength of each (segment, has subblock modes) pair; nil when the frame is not filtered.
    private let strengths: [[VP8LoopFilter.Strength]]?

    private init(columns: Int, rows: Int, parameters: VP8FrameParameters) {
        self.columns = columns
        self.rows = rows
        self.parameters = parameters
        planes = Planes(width: 0, height: 0, luma: [UInt8](repeating: 0, count: columns * rows * 256),
                        u: [UInt8](repeating: 0, count: columns * rows * 64), v: [UInt8](repeating: 0, count: columns * rows * 64),
                        lumaStride: columns * 16, chromaStride: columns * 8)
        topLuma = [UInt8](repeating: 0, count: columns * 16)
        topU = [UInt8](repeating: 0, count: columns * 8)
        topV = [UInt8](repeating: 0, count: columns * 8)
        // libwebp filters nothing when the frame level is 0, whatever the segments say.
        strengths = parameters.filter.level == 0 ? nil : (0 ..< 4).map { segment in
            [false, true].map { VP8LoopFilter.strength(parameters, segment: segment, hasSubblockModes: $0) }
        }
    }

    private mutating func decodeRows(_ modesReader: inout VP8BoolDecoder, _ partitions: inout [VP8BoolDecoder]) throws(WebPError) {
        var modeReader = VP8ModeReader(macroblocksPerRow: columns)
        var residuals = VP8Residuals(macroblocksPerRow: columns)
        var rowModes = [VP8MacroblockModes](repeating: VP8MacroblockModes(), count: columns)
        var rowStrengths = [VP8LoopFilter.Strength](repeating: .none, count: columns)
        var coefficients = [Int16](repeating: 0, count: 25 * 16)
        var work = VP8MacroblockWorkspace()
        for y in 0 ..< rows {
            modeReader.readRow(&modesReader, parameters: parameters, into: &rowModes)
            guard !modesReader.isPastEnd else { throw .truncatedLossyData(partition: 0, row: y) }
            let partition = y & (partitions.count - 1)
            residuals.startRow()
            for x in 0 ..< columns {
                let modes = rowModes[x]
                var coded = false
                try coefficients.withUnsafeMutableBufferPointer { (blocks) throws(WebPError) in
                    guard let blocks = blocks.baseAddress else { return }
                    blocks.update(repeating: 0, count: 25 * 16)
                    if modes.skipsCoefficients {
                        residuals.skip(column: x, hasSubblockModes: modes.hasSubblockModes)
                    } else {
                        coded = parameters.coefficientProbabilities.withUnsafeBufferPointer { probabilities in
                            residuals.read(&partitions[partition], column: x, hasSubblockModes: modes.hasSubblockModes,
                                           quantizer: parameters.quantizers[modes.segment],
                                           probabilities: probabilities.baseAddress.unsafelyUnwrapped, into: blocks)
                        }
                        guard !partitions[partition].isPastEnd else { throw .truncatedLossyData(partition: 1 + partition, row: y) }
                    }
                    reconstruct(&work, modes: modes, coefficients: blocks, x: x, y: y)
                }
                if let strengths {
                    var strength = strengths[modes.segment][modes.hasSubblockModes ? 1 : 0]
                    strength.filtersInnerEdges = strength.filtersInnerEdges || coded
                    rowStrengths[x] = strength
                }
            }
            saveTopRows(y)
            if strengths != nil { filterRow(y, rowStrengths) }
        }
    }

    /// Predicts and reconstructs the macroblock at (`x`, `y`) in `work`, then copies it to the planes.
    private mutating func reconstruct(_ work: inout VP8MacroblockWorkspace, modes: VP8MacroblockModes,
                                      coefficients: UnsafeMutablePointer<Int16>, x: Int, y: Int) {
        work.loadEdges(x: x, y: y, columns: columns, planes: planes, topLuma: topLuma, topU: topU, topV: topV)
        work.withPointers { luma, u, v in
            let stride = VP8MacroblockWorkspace.lumaStride
            if modes.hasSubblockModes {
                for i in 0 ..< 16 {
                    let block = luma + (i >> 2) * 4 * stride + (i & 3) * 4
                    VP8IntraPrediction.predictSubblock(block, stride: stride, mode: modes.subblockModes[i])
                    Self.addResidual(coefficients + i * 16, to: block, stride: stride)
                }
            } else {
                VP8IntraPrediction.predictBlock(luma, stride: stride, size: 16, mode: modes.lumaMode, hasTop: y > 0, hasLeft: x > 0)
                for i in 0 ..< 16 {
                    Self.addResidual(coefficients + i * 16, to: luma + (i >> 2) * 4 * stride + (i & 3) * 4, stride: stride)
                }
            }
            let chromaStride = VP8MacroblockWorkspace.chromaStride
            for (plane, origin) in [u, v].enumerated() {
                VP8IntraPrediction.predictBlock(origin, stride: chromaStride, size: 8, mode: modes.chromaMode, hasTop: y > 0, hasLeft: x > 0)
                for i in 0 ..< 4 {
                    Self.addResidual(coefficients + (16 + plane * 4 + i) * 16,
                                     to: origin + (i >> 1) * 4 * chromaStride + (i & 1) * 4, stride: chromaStride)
                }
            }
        }
        work.store(x: x, y: y, into: &planes)
    }

    /// Adds a block's inverse transform: the full DCT when an AC coefficient is non-zero, the DC-only
    /// shortcut (same result) when only the DC is, nothing for an empty block.
    private static func addResidual(_ block: UnsafePointer<Int16>, to p: UnsafeMutablePointer<UInt8>, stride: Int) {
        var hasAC = false
        for i in 1 ..< 16 where block[i] != 0 {
            hasAC = true
            break
        }
        if hasAC {
            VP8Transform.addInverseDCT(block, to: p, stride: stride)
        } else if block[0] != 0 {
            VP8Transform.addInverseDC(block[0], to: p, stride: stride)
        }
    }

    /// Keeps the bottom pixel rows of macroblock row `y` before they are filtered.
    private mutating func saveTopRows(_ y: Int) {
        let lumaRow = (y * 16 + 15) * planes.lumaStride, chromaRow = (y * 8 + 7) * planes.chromaStride
        topLuma.replaceSubrange(0 ..< planes.lumaStride, with: planes.luma[lumaRow ..< lumaRow + planes.lumaStride])
        topU.replaceSubrange(0 ..< planes.chromaStride, with: planes.u[chromaRow ..< chromaRow + planes.chromaStride])
        topV.replaceSubrange(0 ..< planes.chromaStride, with: planes.v[chromaRow ..< chromaRow + planes.chromaStride])
    }

    /// Runs the loop filter over macroblock row `y`.
    private mutating func filterRow(_ y: Int, _ rowStrengths: [VP8LoopFilter.Strength]) {
        let simple = parameters.filter.simple
        let lumaStride = planes.lumaStride, chromaStride = planes.chromaStride
        planes.luma.withUnsafeMutableBufferPointer { luma in
            for x in 0 ..< columns where rowStrengths[x].limit > 0 {
                VP8LoopFilter.filterLuma(luma.baseAddress.unsafelyUnwrapped + y * 16 * lumaStride + x * 16, stride: lumaStride,
                                         x: x, y: y, strength: rowStrengths[x], simple: simple)
            }
        }
        guard !simple else { return }
        planes.u.withUnsafeMutableBufferPointer { u in
            planes.v.withUnsafeMutableBufferPointer { v in
                for x in 0 ..< columns where rowStrengths[x].limit > 0 {
                    let offset = y * 8 * chromaStride + x * 8
                    VP8LoopFilter.filterChroma(u.baseAddress.unsafelyUnwrapped + offset, v.baseAddress.unsafelyUnwrapped + offset,
                                               stride: chromaStride, x: x, y: y, strength: rowStrengths[x])
                }
            }
        }
    }
}
