/// Decodes PNG files held in memory: every colour type and bit depth, palettes with tRNS, Adam7.
///
/// Checks chunk CRCs, IHDR, chunk order, the zlib stream (including Adler-32) and that the image data is
/// complete; bytes after IEND are ignored. `DecodingLimits` are checked before any pixel memory is
/// allocated. Rows stream out of the inflater, so peak memory is the output plus ~128 KiB.
/// Errors thrown: `PNGLexingError`, `PNGParsingError`, `PNGDataError`.
public enum PNGDecoder {
    /// A decoded image at 8 bits per sample with what the file said about itself.
    public struct Decoded: Sendable, Equatable {
        /// The pixels, RGBA8, straight alpha; 16-bit samples are rounded to the nearest 8-bit value,
        /// `(v * 255 + 32895) >> 16`; lower depths are scaled up exactly.
        public let image: RGBAImage
        /// Header fields (source colour type, bit depth, interlace) and kept metadata.
        public let info: PNGInfo
    }

    /// A decoded image at 16 bits per sample with what the file said about itself.
    public struct Decoded16: Sendable, Equatable {
        /// The pixels, RGBA16, straight alpha; lower depths are scaled up exactly (`v * 65535 / (2^d - 1)`).
        public let image: RGBA16Image
        /// Header fields and kept metadata.
        public let info: PNGInfo
    }

    /// A decoded grey image (a mask, say) at 8 bits per sample.
    public struct DecodedGray: Sendable, Equatable {
        /// The grey samples; scaled like `Decoded`'s (a tRNS colour key is ignored: there is no alpha).
        public let image: GrayImage
        /// Header fields and kept metadata.
        public let info: PNGInfo
    }

    /// Decodes `bytes` (a whole PNG file) to RGBA8.
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default) throws -> Decoded {
        let (pixels, info) = try decodePixels(bytes, limits: limits, sampleType: UInt8.self, channels: 4) { converter, row, count, out, step in
            converter.toRGBA8(row, count: count, into: out, step: step)
        }
        return Decoded(image: RGBAImage(width: info.header.width, height: info.header.height, pixels: pixels), info: info)
    }

    /// Decodes `bytes` (a whole PNG file) to RGBA16, keeping 16-bit samples.
    public static func decode16(_ bytes: [UInt8], limits: DecodingLimits = .default) throws -> Decoded16 {
        let (pixels, info) = try decodePixels(bytes, limits: limits, sampleType: UInt16.self, channels: 4) { converter, row, count, out, step in
            converter.toRGBA16(row, count: count, into: out, step: step)
        }
        return Decoded16(image: RGBA16Image(width: info.header.width, height: info.header.height, pixels: pixels), info: info)
    }

    /// Decodes a grey PNG (colour type 0, any bit depth) to one 8-bit sample per pixel, a quarter of the
    /// memory of RGBA; other colour types throw `PNGParsingError.notGray`.
    public static func decodeGray(_ bytes: [UInt8], limits: DecodingLimits = .default) throws -> DecodedGray {
        let (pixels, info) = try decodePixels(bytes, limits: limits, sampleType: UInt8.self, channels: 1) { converter, row, count, out, step in
            converter.toGray8(row, count: count, into: out, step: step)
        }
        return DecodedGray(image: GrayImage(width: info.header.width, height: info.header.height, pixels: pixels), info: info)
    }

    /// Reads the header and metadata of `bytes` without decoding pixels (chunks and CRCs are still checked,
    /// the image data is not inflated).
    public static func readInfo(_ bytes: [UInt8], limits: DecodingLimits = .default) throws -> PNGInfo {
        try bytes.withUnsafeBytes { file in
            var reader = try PNGChunkReader(file: file, limits: limits)
            var preamble = try PNGStructure.readPreamble(&reader, limits: limits)
            var next = try reader.next()
            while let chunk = next, chunk.type == .IDAT { next = try reader.next() }
            try PNGStructure.readTrailer(&reader, startingWith: next, metadata: &preamble.metadata)
            return preamble.info
        }
    }

    /// Walks the file, allocates `width * height * channels` samples once the limits pass, and fills them
    /// row by row.
    private static func decodePixels<Sample>(
        _ bytes: [UInt8], limits: DecodingLimits, sampleType: Sample.Type, channels: Int,
        convert: (PNGSampleConverter, UnsafePointer<UInt8>, Int, UnsafeMutablePointer<Sample>, Int) -> Void
    ) throws -> ([Sample], PNGInfo) {
        try bytes.withUnsafeBytes { file in
            var reader = try PNGChunkReader(file: file, limits: limits)
            var preamble = try PNGStructure.readPreamble(&reader, limits: limits)
            let header = preamble.header
            if channels == 1 && header.colorType != .gray { throw PNGParsingError.notGray(colorType: header.colorType.rawValue) }
            guard let needed = header.inflatedByteCount else { preconditionFailure("PNGHeader.check bounds the inflated size") }
            let compressed = reader.idatRunLength(after: preamble.firstIDAT)
            // Deflate expands at most 1032:1 (a 258-byte match in 2 bits); anything more is a bomb or truncated.
            if compressed.multipliedReportingOverflow(by: 1032).partialValue &+ 1024 < needed
                && compressed < Int.max / 1032 {
                throw PNGDataError.impossibleCompressionRatio(compressedBytes: compressed, neededBytes: needed)
            }
            let stream = try PNGImageDataStream(first: preamble.firstIDAT, reader: reader)
            let converter = PNGSampleConverter(header: header, palette: preamble.palette, transparency: preamble.transparency)
            // Every pixel belongs to exactly one pass, so the rows fill the whole buffer: no need to zero it.
            let pixels = try [Sample](unsafeUninitializedCapacity: header.width * header.height * channels) { out, initialized in
                guard let base = out.baseAddress else { preconditionFailure("a PNG has at least one pixel") }
                try PNGScanlineDecoder(header: header).decode(from: stream) { row, pass, y in
                    let offset = ((pass.y0 &+ y &* pass.dy) &* header.width &+ pass.x0) &* channels
                    convert(converter, row, pass.width, base + offset, pass.dx)
                }
                initialized = out.count
            }
            var (rest, next) = try stream.finish()
            try PNGStructure.readTrailer(&rest, startingWith: next, metadata: &preamble.metadata)
            return (pixels, preamble.info)
        }
    }
}
