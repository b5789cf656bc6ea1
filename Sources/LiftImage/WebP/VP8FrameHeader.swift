/// The uncompressed start of a VP8 key frame (RFC 6386 §9.1): the 3-byte frame tag (key frame flag,
/// version, show flag, first partition size), the start code `9D 01 2A` and the 14-bit dimensions
/// (their 2-bit upscaling hints are ignored, as libwebp does).
struct VP8FrameHeader {
    /// Width in pixels.
    var width: Int
    /// Height in pixels.
    var height: Int
    /// Size of the first partition (modes and frame header) in bytes, after these 10 bytes.
    var firstPartitionSize: Int

    /// Size of the uncompressed header.
    static let size = 10

    /// Reads the header at the start of a `VP8 ` chunk's payload.
    /// - Throws: `.invalidLossyHeader` for an inter frame, an unknown version, a hidden frame, a
    ///   missing start code, a zero dimension or a first partition larger than the data.
    init(_ data: UnsafeBufferPointer<UInt8>) throws(WebPError) {
        guard data.count >= Self.size else {
            throw .invalidLossyHeader(reason: "the VP8 data is \(data.count) bytes, shorter than its 10-byte header")
        }
        let tag = Int(data[0]) | Int(data[1]) << 8 | Int(data[2]) << 16
        guard tag & 1 == 0 else { throw .invalidLossyHeader(reason: "the frame is an inter frame, not a key frame") }
        guard (tag >> 1) & 7 <= 3 else { throw .invalidLossyHeader(reason: "version \((tag >> 1) & 7) is not one of 0…3") }
        guard (tag >> 4) & 1 == 1 else { throw .invalidLossyHeader(reason: "the frame is marked as not shown") }
        guard data[3] == 0x9D, data[4] == 0x01, data[5] == 0x2A else {
            throw .invalidLossyHeader(reason: "the start code is \(hexString(Array(data[3 ..< 6]))), not 9d 01 2a")
        }
        width = (Int(data[6]) | Int(data[7]) << 8) & 0x3FFF
        height = (Int(data[8]) | Int(data[9]) << 8) & 0x3FFF
        firstPartitionSize = tag >> 5
        guard width > 0, height > 0 else { throw .invalidLossyHeader(reason: "the frame is \(width)×\(height)") }
        guard firstPartitionSize <= data.count - Self.size else {
            throw .invalidLossyHeader(reason: "the first partition is \(firstPartitionSize) bytes but only \(data.count - Self.size) follow the header")
        }
    }
}

/// The rest of a key frame's header, coded in the first partition (RFC 6386 §9.2–9.11, §19.2):
/// segmentation, loop filter, partitions, quantisers and token probabilities.
struct VP8FrameParameters {
    /// Segment-based adjustments (RFC 6386 §9.3).
    struct Segmentation {
        var enabled = false
        /// Whether each macroblock codes its segment (otherwise every one is in segment 0).
        var updatesMap = false
        /// Whether the per-segment values replace the frame's (true) or are added to them.
        var absoluteValues = false
        var quantizer = [Int](repeating: 0, count: 4)
        var filterLevel = [Int](repeating: 0, count: 4)
        /// Probabilities of the segment id tree.
        var treeProbabilities: [UInt8] = [255, 255, 255]
    }

    /// Loop filter settings (RFC 6386 §9.4, §9.6).
    struct Filter {
        var simple = false
        var level = 0
        var sharpness = 0
        var usesDeltas = false
        /// Delta per reference frame; key frames use entry 0 (intra).
        var referenceDeltas = [Int](repeating: 0, count: 4)
        /// Delta per mode; key frames use entry 0 (B_PRED).
        var modeDeltas = [Int](repeating: 0, count: 4)
    }

    var segmentation = Segmentation()
    var filter = Filter()
    /// Number of token partitions (1, 2, 4 or 8).
    var partitionCount = 1
    /// Dequantisation factors of each segment.
    var quantizers: [VP8Quantizer] = []
    /// Token probabilities after this frame's updates, laid out as `VP8Tables.defaultCoefficientProbabilities`.
    var coefficientProbabilities = VP8Tables.defaultCoefficientProbabilities
    /// Probability that a macroblock has coefficients, when macroblocks code a skip flag.
    var skipProbability: UInt8?

    /// Reads the header fields from the first partition.
    init(_ reader: inout VP8BoolDecoder) throws(WebPError) {
        _ = reader.read(128) // colour space: 0 is the only one defined
        _ = reader.read(128) // clamping type: pixel values are clamped either way
        readSegmentation(&reader)
        readFilter(&reader)
        guard !reader.isPastEnd else { throw .invalidLossyHeader(reason: "the first partition ends inside the segment or filter header") }
        partitionCount = 1 << reader.readLiteral(2)
        readQuantizers(&reader)
        _ = reader.read(128) // refresh_entropy_probs: there is no later frame
        var probabilities = coefficientProbabilities
        for i in 0 ..< probabilities.count where reader.read(VP8Tables.coefficientUpdateProbabilities[i]) {
            probabilities[i] = UInt8(reader.readLiteral(8))
        }
        coefficientProbabilities = probabilities
        if reader.read(128) { skipProbability = UInt8(reader.readLiteral(8)) }
    }

    private mutating func readSegmentation(_ reader: inout VP8BoolDecoder) {
        segmentation.enabled = reader.read(128)
        guard segmentation.enabled else { return }
        segmentation.updatesMap = reader.read(128)
        if reader.read(128) { // update segment feature data
            segmentation.absoluteValues = reader.read(128)
            for s in 0 ..< 4 { segmentation.quantizer[s] = reader.readOptionalSigned(7) }
            for s in 0 ..< 4 { segmentation.filterLevel[s] = reader.readOptionalSigned(6) }
        }
        if segmentation.updatesMap {
            for i in 0 ..< 3 { segmentation.treeProbabilities[i] = reader.read(128) ? UInt8(reader.readLiteral(8)) : 255 }
        }
    }

    private mutating func readFilter(_ reader: inout VP8BoolDecoder) {
        filter.simple = reader.read(128)
        filter.level = reader.readLiteral(6)
        filter.sharpness = reader.readLiteral(3)
        filter.usesDeltas = reader.read(128)
        if filter.usesDeltas && reader.read(128) { // update the deltas
            for i in 0 ..< 4 where reader.read(128) { filter.referenceDeltas[i] = reader.readSignedLiteral(6) }
            for i in 0 ..< 4 where reader.read(128) { filter.modeDeltas[i] = reader.readSignedLiteral(6) }
        }
    }

    /// Reads the base quantiser index and its deltas, and derives each segment's factors.
    private mutating func readQuantizers(_ reader: inout VP8BoolDecoder) {
        let base = reader.readLiteral(7)
        let yDC = reader.readOptionalSigned(4), y2DC = reader.readOptionalSigned(4), y2AC = reader.readOptionalSigned(4)
        let uvDC = reader.readOptionalSigned(4), uvAC = reader.readOptionalSigned(4)
        quantizers = (0 ..< 4).map { s in
            var index = base
            if segmentation.enabled {
                index = segmentation.absoluteValues ? segmentation.quantizer[s] : base + segmentation.quantizer[s]
            }
            return VP8Quantizer(index: index, yDC: yDC, y2DC: y2DC, y2AC: y2AC, uvDC: uvDC, uvAC: uvAC)
        }
    }
}

/// The dequantisation factors of one segment (RFC 6386 §14.1): DC and AC factors of luma, Y2 and
/// chroma blocks, from the segment's quantiser index plus the frame's per-kind deltas.
struct VP8Quantizer {
    var y: (dc: Int32, ac: Int32)
    var y2: (dc: Int32, ac: Int32)
    var uv: (dc: Int32, ac: Int32)

    init(index: Int, yDC: Int, y2DC: Int, y2AC: Int, uvDC: Int, uvAC: Int) {
        func clamped(_ i: Int, _ maximum: Int = 127) -> Int { min(max(i, 0), maximum) }
        y = (VP8Tables.dcQuantizer[clamped(index + yDC)], VP8Tables.acQuantizer[clamped(index)])
        // Y2: DC doubled, AC × 155/100 but at least 8.
        y2 = (VP8Tables.dcQuantizer[clamped(index + y2DC)] * 2, max(VP8Tables.acQuantizer[clamped(index + y2AC)] * 155 / 100, 8))
        // Chroma DC at most 132 (the factor of index 117).
        uv = (VP8Tables.dcQuantizer[clamped(index + uvDC, 117)], VP8Tables.acQuantizer[clamped(index + uvAC)])
    }
}
