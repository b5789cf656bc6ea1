import LiftParallel

/// Decodes JPEG files (baseline, extended sequential and progressive Huffman, 8-bit) to RGBA8,
/// matching libjpeg-turbo's default decode (accurate integer IDCT, fancy upsampling) and applying
/// the EXIF orientation.
///
/// Besides `DecodingLimits`, a file may hold at most `maxScans` scans, each scan must follow the
/// progression rules (a coefficient coded once, then refined one bit at a time), and all scans
/// together may visit each coefficient at most `DecodingLimits.maxCoefficientPasses` times:
/// every progressive scan can revisit every block, so a small file repeating scans would otherwise
/// take minutes.
public enum JPEGDecoder {
    /// The most scans a file may have (real progressive files have about 10).
    public static let maxScans = 1000

    /// Choices that change the output.
    public struct Options: Sendable, Equatable {
        /// Rotate/flip the pixels upright according to the EXIF orientation (default true).
        public var applyOrientation: Bool
        /// Threads for the stages after entropy decoding (progressive IDCT, upsampling, colour
        /// conversion; the pixels do not depend on it); `nil`: every active processor.
        public var threads: Int?

        /// Options with the defaults above.
        public init(applyOrientation: Bool = true, threads: Int? = nil) {
            self.applyOrientation = applyOrientation
            self.threads = threads
        }
    }

    /// Decodes a whole JPEG file.
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - limits: size limits, checked before any large allocation.
    ///   - options: whether to apply the EXIF orientation, threads.
    /// - Returns: the upright RGBA image with metadata.
    /// - Throws: `JPEGError` naming the marker and byte offset of the problem.
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default,
                              options: Options = Options()) throws(JPEGError) -> JPEGImage {
        let result: Result<JPEGImage, JPEGError> = bytes.withUnsafeBufferPointer { data in
            var session = JPEGDecodeSession(data: data, limits: limits)
            do throws(JPEGError) {
                return .success(try session.run(options: options))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// One decode: walks the markers, keeps tables and metadata, decodes scans, then produces pixels.
struct JPEGDecodeSession {
    let data: UnsafeBufferPointer<UInt8>
    let limits: DecodingLimits
    var quantTables: [[Int32]?] = [nil, nil, nil, nil]
    var dcTables: [JPEGHuffmanTable?] = [nil, nil, nil, nil]
    var acTables: [JPEGHuffmanTable?] = [nil, nil, nil, nil]
    var restartInterval = 0
    var frame: JPEGFrame?
    var storage: JPEGFrameStorage?
    /// Quantisation tables latched per component at its first scan, as libjpeg does.
    var latchedQuant: [[Int32]?] = []
    var scanCount = 0
    /// The scans so far, checked against the progression rules and the work budget.
    var progression: JPEGProgression?
    var sawJFIF = false
    var adobeTransform: Int?
    var exif: [UInt8]?
    var iccChunks: [(sequence: Int, total: Int, bytes: [UInt8])] = []

    init(data: UnsafeBufferPointer<UInt8>, limits: DecodingLimits) {
        self.data = data
        self.limits = limits
    }

    mutating func run(options: JPEGDecoder.Options) throws(JPEGError) -> JPEGImage {
        guard data.count >= 2, data[0] == 0xFF, data[1] == JPEGMarker.soi else { throw .notJPEG }
        var position = 2
        markers: while true {
            // Find the next marker; libjpeg skips stray bytes between segments with a warning.
            while position < data.count, data[position] != 0xFF { position += 1 }
            while position + 1 < data.count, data[position + 1] == 0xFF { position += 1 }
            guard position + 1 < data.count else { break markers }
            let code = data[position + 1]
            switch code {
            case JPEGMarker.eoi:
                break markers
            case JPEGMarker.soi, 0x00, 0x01, 0xD0 ... 0xD7:
                position += 2
                continue markers
            default:
                break
            }
            let s = try segment(code: code, at: position)
            switch code {
            case 0xC0: try parseFrame(s, process: .baseline)
            case 0xC1: try parseFrame(s, process: .extendedSequential)
            case 0xC2: try parseFrame(s, process: .progressive)
            case 0xC3: throw .unsupported(marker: s.name, offset: s.offset, feature: "lossless JPEG")
            case 0xC5 ... 0xC7: throw .unsupported(marker: s.name, offset: s.offset, feature: "hierarchical JPEG")
            case 0xC9 ... 0xCB, 0xCD ... 0xCF, JPEGMarker.dac:
                throw .unsupported(marker: s.name, offset: s.offset, feature: "arithmetic coding")
            case JPEGMarker.dht: try parseHuffmanTables(s)
            case JPEGMarker.dqt: try parseQuantizationTables(s)
            case JPEGMarker.dri: try parseRestartInterval(s)
            case 0xE0 ... 0xEF: parseApplication(s)
            case JPEGMarker.sos:
                position = try decodeScan(s)
                continue markers
            default: break // COM, DNL (the height is never 0 here), JPGn and reserved markers carry nothing we use.
            }
            position = s.end
        }
        guard let frame, let storage, scanCount > 0 else { throw .noImageData(offset: position) }
        let threads = options.threads ?? Parallel.defaultThreads
        if frame.isProgressive { finishProgressive(frame: frame, storage: storage, threads: threads) }
        let colorSpace = try colorSpace(frame: frame)
        let stored = JPEGPixelAssembler(frame: frame, storage: storage, colorSpace: colorSpace).rgba(threads: threads)
        let orientation = exif.map { EXIFOrientation(exif: $0) } ?? .up
        let image = options.applyOrientation ? orientation.apply(to: stored) : stored
        let info = JPEGInfo(process: frame.process, colorSpace: colorSpace,
                            components: frame.components.map { .init(id: $0.id, horizontalSampling: $0.h, verticalSampling: $0.v) },
                            scanCount: scanCount, restartInterval: restartInterval)
        return JPEGImage(image: image, storedWidth: frame.width, storedHeight: frame.height, orientation: orientation,
                         orientationApplied: options.applyOrientation, iccProfile: assembleICCProfile(), exif: exif, info: info)
    }

    /// Parses the scan header at `s`, allocates the frame's storage on the first scan, decodes the
    /// entropy-coded data and returns the offset of the marker that follows it.
    private mutating func decodeScan(_ s: Segment) throws(JPEGError) -> Int {
        guard let frame else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "scan before any frame header") }
        guard scanCount < JPEGDecoder.maxScans else {
            throw .limitExceeded(what: "scan count", value: scanCount + 1, limit: JPEGDecoder.maxScans)
        }
        let scan = try parseScan(s, frame: frame)
        var progression = self.progression ?? JPEGProgression(frame: frame, passes: limits.maxCoefficientPasses)
        try progression.admit(scan, frame: frame)
        self.progression = progression
        try checkTables(s, scan: scan, frame: frame)
        if storage == nil, scan.minimumBits(frame: frame) > (data.count - scan.dataOffset) * 8 {
            // Refused before allocating: a small file claiming a huge frame cannot fill its first scan.
            throw .truncated(marker: s.name, offset: s.offset)
        }
        let storage = try allocateStorage(frame: frame)
        for index in scan.componentIndices where latchedQuant[index] == nil {
            latchedQuant[index] = quantTables[frame.components[index].quantTableID]
        }
        var decoder = JPEGEntropyDecoder(data: data, scan: scan, restartInterval: restartInterval)
        if frame.isProgressive {
            try decoder.decodeProgressiveScan(frame: frame, scan: scan, storage: storage)
        } else {
            let quant = scan.componentIndices.map { latchedQuant[$0] ?? [] }
            try withQuantPointers(quant) { (pointers) throws(JPEGError) in
                try decoder.decodeSequentialScan(frame: frame, scan: scan, storage: storage, quant: pointers)
            }
        }
        scanCount += 1
        guard let next = decoder.reader.skipToMarker() else { return data.count }
        return next
    }

    /// The frame's storage, allocated once after checking it fits the limits.
    private mutating func allocateStorage(frame: JPEGFrame) throws(JPEGError) -> JPEGFrameStorage {
        if let storage { return storage }
        let planes = JPEGFrameStorage.byteCount(frame: frame, withCoefficients: frame.isProgressive)
        let (output, overflow) = (frame.width * frame.height).multipliedReportingOverflow(by: 4)
        guard let planes, !overflow, planes + output <= limits.maxInflatedBytes else {
            throw .limitExceeded(what: "decoded size in bytes", value: planes.map { $0 + output } ?? Int.max, limit: limits.maxInflatedBytes)
        }
        let storage = JPEGFrameStorage(frame: frame, withCoefficients: frame.isProgressive)
        self.storage = storage
        latchedQuant = Array(repeating: nil, count: frame.components.count)
        return storage
    }

    /// Dequantises and inverse-transforms every block of a progressive frame into the planes, block
    /// rows shared out over `threads`.
    private func finishProgressive(frame: JPEGFrame, storage: JPEGFrameStorage, threads: Int) {
        for (index, component) in frame.components.enumerated() {
            // A component no scan covered stays mid-grey, as in libjpeg (whose tables are then unset).
            guard let quant = latchedQuant[index] else { continue }
            let plane = storage.planes[index], stride = storage.strides[index], coefficients = storage.coefficients[index]
            quant.withUnsafeBufferPointer { q in
                let quantPointer = q.baseAddress.unsafelyUnwrapped
                Parallel.forEach(count: component.paddedBlocksPerColumn, threads: threads, minimumPerPart: 8) { blockRows in
                    for y in blockRows {
                        for x in 0 ..< component.paddedBlocksPerLine {
                            let blockIndex: Int = y &* component.paddedBlocksPerLine &+ x
                            let offset: Int = (y &* 8) &* stride &+ x &* 8
                            JPEGIDCT.transform(coefficients + blockIndex &* 64, quantPointer, plane + offset, stride)
                        }
                    }
                }
            }
        }
    }

    /// The colour space of the stored components, decided as libjpeg's `default_decompress_parms`.
    private func colorSpace(frame: JPEGFrame) throws(JPEGError) -> JPEGInfo.ColorSpace {
        switch frame.components.count {
        case 1:
            return .grayscale
        case 3:
            if sawJFIF { return .yCbCr }
            if let adobeTransform { return adobeTransform == 0 ? .rgb : .yCbCr }
            let ids = frame.components.map(\.id)
            return ids == [0x52, 0x47, 0x42] ? .rgb : .yCbCr
        case 4:
            if let adobeTransform { return adobeTransform == 0 ? .cmyk : .ycck }
            return .cmyk
        default:
            throw .unsupported(marker: JPEGMarker.name(frame.markerCode), offset: frame.offset,
                               feature: "\(frame.components.count) components")
        }
    }
}

/// Calls `body` with stable pointers to each table's 64 values.
private func withQuantPointers<R>(_ tables: [[Int32]], _ body: ([UnsafePointer<Int32>]) throws(JPEGError) -> R) throws(JPEGError) -> R {
    let storage = UnsafeMutablePointer<Int32>.allocate(capacity: 64 * max(tables.count, 1))
    defer { storage.deallocate() }
    var pointers: [UnsafePointer<Int32>] = []
    for (i, table) in tables.enumerated() {
        precondition(table.count == 64, "quantisation table must have 64 entries")
        (storage + 64 * i).initialize(from: table, count: 64)
        pointers.append(UnsafePointer(storage + 64 * i))
    }
    return try body(pointers)
}
