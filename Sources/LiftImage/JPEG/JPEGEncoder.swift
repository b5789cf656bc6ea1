import LiftParallel

/// Encodes opaque images as baseline JPEG (JFIF, 8-bit, one interleaved sequential scan), following
/// libjpeg-turbo's pipeline step for step: `rgb_ycc_convert`, `h2v2_downsample`, the islow forward
/// DCT (jfdctint.c) with libjpeg-turbo's reciprocal quantiser, Annex K tables scaled by
/// `jpeg_set_quality`, and Huffman tables from `jpeg_gen_optimal_table`. With the same settings the
/// file is byte-identical to libjpeg-turbo's (checked against Pillow's `optimize=True`).
///
/// Work: the transform runs in MCU rows shared over the threads; the entropy coding runs in
/// contiguous parts of MCU rows, each into its own bit buffer, joined bit-exactly before the `FF 00`
/// stuffing, so the file is the same for any thread count and needs no restart markers. Memory: the
/// whole image's non-zero quantised coefficients (`JPEGCoefficientStore`: 8 bytes a block plus 2 a
/// coefficient, 0.5-1.3 bytes a pixel on a photo) and the output.
public enum JPEGEncoder {
    /// The longest side libjpeg (and so most readers) accepts.
    public static let maximumDimension = 65_500
    /// The quality used when none is given: listing and product photos are commonly saved at 90, and
    /// a cut-out's hard edge against a flat background is where JPEG's error gathers (2 dB better
    /// there than libjpeg's and Pillow's 75, for about twice the bytes; the module README has the
    /// figures).
    public static let defaultQuality = 90

    /// How densely the chroma components are sampled.
    public enum Subsampling: String, Sendable, Equatable, CaseIterable {
        /// Cb and Cr at half the width and half the height (2x2 luminance blocks per MCU).
        case yuv420 = "4:2:0"
        /// Cb and Cr at full resolution.
        case yuv444 = "4:4:4"
    }

    /// Which Huffman tables code the scan.
    public enum HuffmanTables: Sendable, Equatable {
        /// Tables fitted to the image's symbol counts (a second pass over the coefficients; files
        /// typically several per cent smaller).
        case optimized
        /// The example tables of Annex K.3 (one pass).
        case standard
    }

    /// How to encode.
    public struct Options: Sendable, Equatable {
        /// libjpeg quality 1...100: the Annex K tables scaled by 5000/q below 50 and 200 - 2q from
        /// 50 on, steps clamped to 1...255.
        public var quality: Int
        /// Chroma sampling for colour images; grey images always have one full-resolution component.
        public var subsampling: Subsampling
        /// Optimised (default) or standard Huffman tables.
        public var huffmanTables: HuffmanTables
        /// An ICC profile to embed as APP2 `ICC_PROFILE` chunks; nil or empty: none.
        public var iccProfile: [UInt8]?
        /// Threads for the transform and the entropy coding; `nil`: every active processor. The
        /// file does not depend on it.
        public var threads: Int?

        /// Options with the defaults above: quality 90, 4:2:0, optimised tables, no profile.
        public init(quality: Int = JPEGEncoder.defaultQuality, subsampling: Subsampling = .yuv420,
                    huffmanTables: HuffmanTables = .optimized, iccProfile: [UInt8]? = nil, threads: Int? = nil) {
            self.quality = quality
            self.subsampling = subsampling
            self.huffmanTables = huffmanTables
            self.iccProfile = iccProfile
            self.threads = threads
        }
    }

    /// Encodes an opaque RGBA8 image (alpha 255 everywhere; straight RGB, written upright, no EXIF).
    /// - Returns: the whole JPEG file.
    /// - Throws: `JPEGEncodingError.transparentPixel` for the first pixel whose alpha is not 255,
    ///   or the size, quality and profile errors.
    public static func encode(_ image: RGBAImage, options: Options = Options()) throws(JPEGEncodingError) -> [UInt8] {
        try validate(width: image.width, height: image.height, options: options)
        let layout = JPEGEncodingLayout(width: image.width, height: image.height, color: true,
                                        subsample: options.subsampling == .yuv420)
        let encoded = image.pixels.withUnsafeBufferPointer { pixels in
            encode(.rgba(pixels.baseAddress.unsafelyUnwrapped), layout: layout, options: options)
        }
        guard let encoded else { throw firstTransparentPixel(image) }
        return encoded
    }

    /// Encodes an 8-bit grey image or mask as a one-component JPEG (`options.subsampling` unused).
    /// - Returns: the whole JPEG file.
    public static func encode(_ image: GrayImage, options: Options = Options()) throws(JPEGEncodingError) -> [UInt8] {
        try validate(width: image.width, height: image.height, options: options)
        let layout = JPEGEncodingLayout(width: image.width, height: image.height, color: false, subsample: false)
        let encoded = image.pixels.withUnsafeBufferPointer { pixels in
            encode(.gray(pixels.baseAddress.unsafelyUnwrapped), layout: layout, options: options)
        }
        guard let encoded else { preconditionFailure("a grey image has no alpha to refuse") }
        return encoded
    }

    private static func validate(width: Int, height: Int, options: Options) throws(JPEGEncodingError) {
        guard width >= 1, height >= 1 else { throw .emptyImage(width: width, height: height) }
        guard width <= maximumDimension, height <= maximumDimension else {
            throw .imageTooLarge(width: width, height: height, maximum: maximumDimension)
        }
        guard (1 ... 100).contains(options.quality) else { throw .qualityOutOfRange(options.quality) }
        let profileBytes = options.iccProfile?.count ?? 0
        guard profileBytes <= 255 * iccChunkBytes else {
            throw .iccProfileTooLarge(bytes: profileBytes, maximum: 255 * iccChunkBytes)
        }
    }

    private static func firstTransparentPixel(_ image: RGBAImage) -> JPEGEncodingError {
        for p in 0 ..< image.pixelCount where image.pixels[p * 4 + 3] != 255 {
            return .transparentPixel(x: p % image.width, y: p / image.width, alpha: image.pixels[p * 4 + 3])
        }
        preconditionFailure("the encoder found a transparent pixel that is not there")
    }

    /// The whole pipeline on validated input; nil when an RGBA pixel is not opaque.
    private static func encode(_ source: JPEGEncoderSource, layout: JPEGEncodingLayout, options: Options) -> [UInt8]? {
        let threads = max(1, options.threads ?? Parallel.defaultThreads)
        let tableCount = layout.components.count == 3 ? 2 : 1
        let steps = [JPEGQuantizationTable.standardLuminance, JPEGQuantizationTable.standardChrominance].prefix(tableCount)
            .map { JPEGQuantizationTable(base: $0, quality: options.quality).steps }
        let store = JPEGCoefficientStore(layout: layout)
        guard store.fill(from: source, divisors: steps.map { JPEGQuantizationDivisors(steps: $0).packed }, threads: threads) else {
            return nil
        }
        let coder = JPEGEntropyEncoder(store: store)
        // Contiguous parts of MCU rows, at least 8 rows each: every part is one bit buffer.
        let parts = Parallel.partCount(count: layout.mcuRows, threads: threads, minimumPerPart: 8)
        let rowsPerPart = (layout.mcuRows + parts - 1) / parts
        let ranges = (0 ..< parts).map { $0 * rowsPerPart ..< min(layout.mcuRows, ($0 + 1) * rowsPerPart) }

        let huffman: [JPEGHuffmanSpec]
        switch options.huffmanTables {
        case .standard:
            huffman = Array([JPEGHuffmanSpec.standardLuminanceDC, .standardLuminanceAC,
                             .standardChrominanceDC, .standardChrominanceAC].prefix(tableCount * 2))
        case .optimized:
            let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: parts * 1024)
            counts.initialize(repeating: 0)
            defer { counts.deallocate() }
            Parallel.forEach(count: parts, threads: parts) { range in
                for part in range { coder.countSymbols(mcuRows: ranges[part], into: counts.baseAddress.unsafelyUnwrapped + part * 1024) }
            }
            huffman = (0 ..< tableCount * 2).map { table in
                let frequencies = (0 ..< 256).map { symbol in (0 ..< parts).reduce(0) { $0 + counts[$1 * 1024 + table * 256 + symbol] } }
                return JPEGHuffmanSpec.optimal(frequencies: frequencies)
            }
        }

        let codes = huffman.flatMap { JPEGHuffmanCodes($0).entries }
        let writers = UnsafeMutableBufferPointer<JPEGBitWriter>.allocate(capacity: parts)
        codes.withUnsafeBufferPointer { codes in
            Parallel.forEach(count: parts, threads: parts) { range in
                for part in range {
                    var writer = JPEGBitWriter(capacity: store.layout.width * rowsPerPart * 8 * layout.maxV / 64)
                    coder.encode(mcuRows: ranges[part], codes: codes.baseAddress.unsafelyUnwrapped, into: &writer)
                    (writers.baseAddress.unsafelyUnwrapped + part).initialize(to: writer)
                }
            }
        }
        defer {
            for writer in writers { writer.deallocate() }
            writers.deallocate()
        }

        let header = headers(layout: layout, steps: steps, huffman: huffman, iccProfile: options.iccProfile ?? [])
        let dataBits = writers.reduce(0) { $0 + $1.bitCount }
        let capacity = header.count + 2 * (dataBits / 8 + 1) + 16
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            let base = buffer.baseAddress.unsafelyUnwrapped
            _ = UnsafeMutableBufferPointer(rebasing: buffer[0 ..< header.count]).initialize(from: header)
            var written = header.count
            written += JPEGBitWriter.stuff(Array(writers), into: base + written)
            base[written] = 0xFF
            base[written + 1] = JPEGMarker.eoi
            count = written + 2
        }
    }
}
