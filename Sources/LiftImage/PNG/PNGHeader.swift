/// The colour type of a PNG image, as stored in IHDR.
public enum PNGColorType: UInt8, Sendable, CustomStringConvertible {
    /// Grey samples (type 0).
    case gray = 0
    /// Red, green, blue (type 2).
    case rgb = 2
    /// Palette indices into PLTE (type 3).
    case palette = 3
    /// Grey and alpha (type 4).
    case grayAlpha = 4
    /// Red, green, blue, alpha (type 6).
    case rgba = 6

    /// Samples per pixel as stored in the file.
    public var channels: Int {
        switch self {
        case .gray, .palette: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// The bit depths the spec allows for this colour type.
    public var allowedBitDepths: [Int] {
        switch self {
        case .gray: [1, 2, 4, 8, 16]
        case .palette: [1, 2, 4, 8]
        case .rgb, .grayAlpha, .rgba: [8, 16]
        }
    }

    public var description: String {
        switch self {
        case .gray: "grey"
        case .rgb: "RGB"
        case .palette: "palette"
        case .grayAlpha: "grey+alpha"
        case .rgba: "RGBA"
        }
    }
}

/// The fields of a PNG's IHDR chunk, validated.
public struct PNGHeader: Sendable, Equatable {
    /// Width in pixels (1 ... 2^31 - 1).
    public let width: Int
    /// Height in pixels (1 ... 2^31 - 1).
    public let height: Int
    /// Bits per sample: 1, 2, 4, 8 or 16 (palette: bits per index).
    public let bitDepth: Int
    /// How samples are laid out.
    public let colorType: PNGColorType
    /// True for Adam7 interlacing.
    public let interlaced: Bool

    /// Makes a header from known-good fields (the encoder's side).
    init(width: Int, height: Int, bitDepth: Int, colorType: PNGColorType, interlaced: Bool) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.interlaced = interlaced
    }

    /// Parses and validates IHDR's 13-byte payload.
    init(parsing data: UnsafeRawBufferPointer) throws(PNGParsingError) {
        guard data.count == 13 else { throw .invalidIHDRLength(data.count) }
        let w = data.bigEndianUInt32(at: 0), h = data.bigEndianUInt32(at: 4)
        guard w > 0, h > 0, w <= UInt32(Int32.max), h <= UInt32(Int32.max) else { throw .invalidDimensions(width: w, height: h) }
        guard let colorType = PNGColorType(rawValue: data[9]) else { throw .invalidColorType(data[9]) }
        guard colorType.allowedBitDepths.contains(Int(data[8])) else {
            throw .invalidBitDepth(colorType: data[9], bitDepth: data[8])
        }
        guard data[10] == 0 else { throw .invalidCompressionMethod(data[10]) }
        guard data[11] == 0 else { throw .invalidFilterMethod(data[11]) }
        guard data[12] <= 1 else { throw .invalidInterlaceMethod(data[12]) }
        self.init(width: Int(w), height: Int(h), bitDepth: Int(data[8]), colorType: colorType, interlaced: data[12] == 1)
    }

    /// Bits per pixel in the file's scanlines.
    var bitsPerPixel: Int { bitDepth * colorType.channels }

    /// The byte distance filters look back: bytes per complete pixel, at least 1.
    var filterStride: Int { max(1, bitsPerPixel / 8) }

    /// Bytes in one scanline of `pixels` pixels, without the filter byte (no overflow for valid sizes:
    /// width < 2^31 and at most 64 bits per pixel).
    func rowBytes(pixels: Int) -> Int { (pixels * bitsPerPixel + 7) / 8 }

    /// Checks the image against `limits` before anything is allocated.
    func check(_ limits: DecodingLimits) throws(PNGParsingError) {
        guard width <= limits.maxDimension else { throw .limitExceeded(limit: "width", value: width, maximum: limits.maxDimension) }
        guard height <= limits.maxDimension else { throw .limitExceeded(limit: "height", value: height, maximum: limits.maxDimension) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        // `Int.max / 8` keeps the RGBA16 output's byte count (8 per pixel) representable whatever the limits.
        guard !overflow, pixels <= limits.maxPixels, pixels <= Int.max / 8 else {
            throw .limitExceeded(limit: "pixels", value: overflow ? Int.max : pixels, maximum: limits.maxPixels)
        }
        guard MemoryBudget.estimate(width: width, height: height) <= limits.maxMemoryBytes else {
            throw .overMemoryBudget(width: width, height: height, budget: limits.maxMemoryBytes)
        }
        guard let inflated = inflatedByteCount, inflated <= limits.maxInflatedBytes else {
            throw .limitExceeded(limit: "inflated bytes", value: inflatedByteCount ?? Int.max, maximum: limits.maxInflatedBytes)
        }
    }

    /// Total bytes of filtered scanlines the zlib stream must hold, or nil if that overflows `Int`.
    var inflatedByteCount: Int? {
        var total = 0
        for pass in PNGPass.passes(for: self) {
            let (bits, o1) = pass.width.multipliedReportingOverflow(by: bitsPerPixel)
            let (rows, o2) = (1 + (bits + 7) / 8).multipliedReportingOverflow(by: pass.height)
            let (sum, o3) = total.addingReportingOverflow(rows)
            if o1 || o2 || o3 { return nil }
            total = sum
        }
        return total
    }
}
