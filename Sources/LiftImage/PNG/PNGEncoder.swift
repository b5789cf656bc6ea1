import CZlib
import LiftParallel

/// Encodes images as PNG: grey, grey+alpha, RGB, RGBA at 8 or 16 bits, or the smallest lossless layout
/// (including palettes and 1/2/4-bit grey) when asked. Output is a complete file in memory; use
/// `ImageIO.writePNG` to write one atomically.
public enum PNGEncoder {
    /// zlib's compression strategies.
    public enum Strategy: Sendable, Equatable {
        /// Z_DEFAULT_STRATEGY.
        case standard
        /// Z_FILTERED: favours Huffman coding over short matches (libpng's choice for filtered rows).
        case filtered
        /// Z_RLE: matches only at distance 1; very fast, good on flat masks.
        case rle
        /// Z_HUFFMAN_ONLY: no matches.
        case huffmanOnly

        var zlibValue: Int32 {
            switch self {
            case .standard: Z_DEFAULT_STRATEGY
            case .filtered: Z_FILTERED
            case .rle: Z_RLE
            case .huffmanOnly: Z_HUFFMAN_ONLY
            }
        }
    }

    /// What deflates the filtered rows.
    public enum Compressor: Sendable, Equatable {
        /// zlib at `Options.level` with `Options.strategy`.
        case zlib
        /// Lift's fpnge-style deflate: literals, runs of zeros and of repeated pixels, one Huffman code
        /// per 256 KiB segment (`PNGFastDeflater`). On 11-12 MP cut-outs ~9× faster than zlib level 4
        /// for 3-8 % more bytes, and 5× faster than level 1 for fewer bytes (`Benchmarks/RESULTS.md`,
        /// "Fast PNG compressor"); `level` and `strategy` are not used.
        case fast
    }

    /// How to encode.
    public struct Options: Sendable, Equatable {
        /// What deflates the rows: zlib (default) or the fast compressor.
        public var compressor: Compressor
        /// zlib level, 0 (store) ... 9 (smallest); default 6.
        public var level: Int
        /// zlib strategy.
        public var strategy: Strategy
        /// Row filter: adaptive (minimum sum of absolute residuals) or one fixed type 0...4 for every row.
        /// Palette and sub-8-bit images always use filter 0, as libpng does.
        public var adaptiveFilter: Bool
        /// The fixed filter type used when `adaptiveFilter` is false.
        public var fixedFilter: UInt8
        /// Pick the smallest lossless colour type and depth (opaque → no alpha, grey → G, ≤ 256 colours → palette).
        public var reduceColorType: Bool
        /// Ancillary chunks to write (gAMA, sRGB, iCCP, pHYs before the image data, eXIf too).
        public var metadata: PNGMetadata
        /// Threads that filter and deflate the image data (in 256 KiB segments; the file is the same
        /// for any count); `nil`: every active processor.
        public var threads: Int?

        /// Options with libpng's defaults: level 6, Z_FILTERED, adaptive filters, layout kept.
        public init(compressor: Compressor = .zlib, level: Int = 6, strategy: Strategy = .filtered, adaptiveFilter: Bool = true,
                    fixedFilter: UInt8 = 0, reduceColorType: Bool = false, metadata: PNGMetadata = PNGMetadata(), threads: Int? = nil) {
            self.compressor = compressor
            self.level = level
            self.strategy = strategy
            self.adaptiveFilter = adaptiveFilter
            self.fixedFilter = fixedFilter
            self.reduceColorType = reduceColorType
            self.metadata = metadata
            self.threads = threads
        }

        /// The defaults.
        public static let standard = Options()
        /// Fast mode for masks and previews: level 1, run-length matching, Up filter (on a soft 4K mask 27%
        /// smaller than Sub at the same speed), smallest layout (a hard mask becomes 1-bit grey).
        public static let fast = Options(level: 1, strategy: .rle, adaptiveFilter: false, fixedFilter: 2, reduceColorType: true)
    }

    /// Encodes an RGBA8 image (written as RGBA unless `options.reduceColorType`).
    public static func encode(_ image: RGBAImage, options: Options = .standard) throws -> [UInt8] {
        try encode(PNGSamples(image), options: options)
    }

    /// Encodes an 8-bit grey image or mask.
    public static func encode(_ image: GrayImage, options: Options = .standard) throws -> [UInt8] {
        try encode(PNGSamples(image), options: options)
    }

    /// Encodes any supported sample layout at 8 or 16 bits.
    public static func encode(_ samples: PNGSamples, options: Options = .standard) throws -> [UInt8] {
        guard (0...9).contains(options.level) else { throw PNGEncodingError.invalidCompressionLevel(options.level) }
        guard options.fixedFilter <= 4 else { throw PNGEncodingError.invalidFilterType(options.fixedFilter) }
        let (width, height, channels) = (samples.width, samples.height, samples.layout.channels)
        guard width >= 1, height >= 1, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw PNGEncodingError.invalidDimensions(width: width, height: height)
        }
        let (expected, overflow) = width.multipliedReportingOverflow(by: height * channels)
        let actual: Int
        switch samples.storage {
        case .eight(let s): actual = s.count
        case .sixteen(let s): actual = s.count
        }
        guard !overflow, expected == actual else { throw PNGEncodingError.sampleCountMismatch(expected: expected, actual: actual) }

        // PNG allows RGB profiles only on colour types and GRAY ones only on grey types: an RGB profile
        // keeps colour sources in a colour type, a GRAY one keeps grey images out of a palette.
        let profileSpace = options.metadata.iCCP.map { PNGColorProfile.colorSpace(ofChunk: $0) ?? .other }
        let allowGray = profileSpace != .rgb, keepGrayType = profileSpace == .gray
        switch samples.storage {
        case .eight(let bytes):
            return try bytes.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { preconditionFailure("a validated image has samples") }
                let plan = options.reduceColorType ? PNGEncodingPlan(reducing: source, layout: samples.layout, allowGray: allowGray,
                                                                                     keepGrayType: keepGrayType)
                                                   : PNGEncodingPlan(keeping: samples.layout, depth: 8)
                return try write(plan: plan, width: width, height: height, options: options) { y, out in
                    plan.packRow(base + y * width * channels, width: width, channels: channels, into: out)
                }
            }
        case .sixteen(let values):
            if options.reduceColorType && values.allSatisfy({ $0 % 257 == 0 }) {
                let eight = PNGSamples(width: width, height: height, layout: samples.layout, storage: .eight(values.map { UInt8($0 / 257) }))
                return try encode(eight, options: options)
            }
            return try values.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress else { preconditionFailure("a validated image has samples") }
                let plan = options.reduceColorType ? PNGEncodingPlan(reducing16: source, layout: samples.layout, allowGray: allowGray)
                                                   : PNGEncodingPlan(keeping: samples.layout, depth: 16)
                return try write(plan: plan, width: width, height: height, options: options) { y, out in
                    plan.packRow16(base + y * width * channels, width: width, channels: channels, into: out)
                }
            }
        }
    }

    /// Writes the file: IHDR, metadata, PLTE/tRNS, the filtered rows deflated into IDAT chunks, IEND.
    static func write(plan: PNGEncodingPlan, width: Int, height: Int, options: Options,
                              packRow: (Int, UnsafeMutablePointer<UInt8>) -> Void) throws -> [UInt8] {
        let header = PNGHeader(width: width, height: height, bitDepth: plan.bitDepth, colorType: plan.colorType, interlaced: false)
        var file = PNGChunkWriter()
        file.append(.IHDR, PNGBytesBuilder.be32(UInt32(width)) + PNGBytesBuilder.be32(UInt32(height))
                    + [UInt8(plan.bitDepth), plan.colorType.rawValue, 0, 0, 0])
        let grayFile = plan.colorType == .gray || plan.colorType == .grayAlpha
        // A profile whose colour space does not fit the file's colour type is left out (PNG 11.3.3.3);
        // one that is written says what sRGB would, and PNG allows only one of the two (11.3.3.5).
        let profileFits = options.metadata.iCCP.map { PNGColorProfile.colorSpace(ofChunk: $0) == (grayFile ? .gray : .rgb) } ?? false
        for (name, bytes) in options.metadata.chunks where PNGMetadata.isValid(name: name, payload: bytes) {
            if name == "iCCP", !profileFits { continue }
            if name == "sRGB", profileFits { continue }
            file.append(PNGChunkType(PNGBytesBuilder.fourCC(name)), bytes)
        }
        if plan.colorType == .palette {
            file.append(.PLTE, plan.palette.flatMap { [$0.x, $0.y, $0.z] })
            let alphas = plan.palette.prefix { $0.w < 255 }.map(\.w)
            if !alphas.isEmpty { file.append(.tRNS, alphas) }
        }
        let rowBytes = header.rowBytes(pixels: width)
        guard rowBytes < 1 << 30 else { throw PNGEncodingError.invalidDimensions(width: width, height: height) }
        let imageData = PNGImageData(
            height: height, rowBytes: rowBytes, bpp: header.filterStride,
            adaptive: options.adaptiveFilter && plan.bitDepth >= 8 && plan.colorType != .palette,
            fixedFilter: plan.bitDepth >= 8 && plan.colorType != .palette ? options.fixedFilter : 0,
            compressor: options.compressor == .fast ? .fast : .zlib(level: options.level, strategy: options.strategy.zlibValue))
        let pieces = try imageData.deflate(threads: options.threads ?? Parallel.defaultThreads, packRow: packRow)
        // One allocation for the whole file: each IDAT chunk adds 12 bytes to its piece, IEND 12.
        file.reserveCapacity(file.bytes.count + pieces.reduce(12) { $0 + $1.count + 12 })
        for piece in pieces { file.append(.IDAT, piece) }
        file.append(.IEND, [])
        return file.bytes
    }
}

/// Appends framed chunks (length, type, payload, CRC-32) to a growing PNG file.
struct PNGChunkWriter {
    private(set) var bytes: [UInt8] = pngSignature

    /// Makes room for a file of `count` bytes in all.
    mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(count) }

    mutating func append(_ type: PNGChunkType, _ payload: [UInt8]) {
        payload.withUnsafeBufferPointer { append(type, $0) }
    }

    mutating func append(_ type: PNGChunkType, _ payload: UnsafeBufferPointer<UInt8>) {
        let typeBytes = type.bytes
        bytes += PNGBytesBuilder.be32(UInt32(payload.count)) + typeBytes
        bytes.append(contentsOf: payload)
        var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, 4) }
        crc = crc32(crc, payload.baseAddress, UInt32(payload.count))
        bytes += PNGBytesBuilder.be32(UInt32(crc))
    }
}

/// Big-endian helpers for building chunks.
enum PNGBytesBuilder {
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func fourCC(_ name: String) -> UInt32 { name.utf8.reduce(0) { $0 << 8 | UInt32($1) } }
}
