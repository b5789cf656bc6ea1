/// Ancillary chunks a PNG decoder keeps as raw payload bytes (nothing is applied to the pixels:
/// no gamma correction, no colour management).
public struct PNGMetadata: Sendable, Equatable {
    /// gAMA payload: image gamma x 100000, big-endian UInt32.
    public var gAMA: [UInt8]?
    /// sRGB payload: one byte, the rendering intent.
    public var sRGB: [UInt8]?
    /// iCCP payload: profile name, NUL, compression method, zlib-compressed ICC profile.
    public var iCCP: [UInt8]?
    /// pHYs payload: pixels per unit X and Y (big-endian UInt32 each), unit byte (1 = metre).
    public var pHYs: [UInt8]?
    /// eXIf payload: a TIFF-structured Exif block ("MM" or "II" first).
    public var eXIf: [UInt8]?

    /// An empty set of metadata.
    public init(gAMA: [UInt8]? = nil, sRGB: [UInt8]? = nil, iCCP: [UInt8]? = nil, pHYs: [UInt8]? = nil, eXIf: [UInt8]? = nil) {
        self.gAMA = gAMA
        self.sRGB = sRGB
        self.iCCP = iCCP
        self.pHYs = pHYs
        self.eXIf = eXIf
    }

    /// Only the chunks that say how to interpret colours (gAMA, sRGB, iCCP): what an image made from
    /// the pixels keeps when its size and orientation may differ from the source's.
    public var colorOnly: PNGMetadata { PNGMetadata(gAMA: gAMA, sRGB: sRGB, iCCP: iCCP) }

    /// The chunks present, in the fixed order gAMA, sRGB, iCCP, pHYs, eXIf, with their payloads.
    public var chunks: [(name: String, bytes: [UInt8])] {
        [("gAMA", gAMA), ("sRGB", sRGB), ("iCCP", iCCP), ("pHYs", pHYs), ("eXIf", eXIf)].compactMap { name, bytes in
            bytes.map { (name, $0) }
        }
    }

    /// Records a kept chunk's payload (the first valid one of each kind wins: `isValid`); other chunk
    /// types, and payloads libpng would reject, are ignored.
    mutating func record(_ chunk: PNGChunk) {
        let bytes = Array(chunk.data)
        guard Self.isValid(name: chunk.type.description, payload: bytes) else { return }
        switch chunk.type {
        case .gAMA where gAMA == nil: gAMA = bytes
        case .sRGB where sRGB == nil: sRGB = bytes
        case .iCCP where iCCP == nil: iCCP = bytes
        case .pHYs where pHYs == nil: pHYs = bytes
        case .eXIf where eXIf == nil: eXIf = bytes
        default: break
        }
    }

    /// Whether `payload` is a valid `name` chunk as libpng checks it, so that no file Lift writes
    /// carries one libpng rejects: `gAMA` 4 bytes holding 16…625,000,000 (a gamma of 0.00016…6250),
    /// `sRGB` one byte, a rendering intent 0…3, `iCCP` a 1–79-byte name, NUL, compression method 0
    /// and data, `pHYs` 9 bytes with unit 0 or 1, `eXIf` a TIFF byte order (`MM` or `II`). Other names: true.
    public static func isValid(name: String, payload: [UInt8]) -> Bool {
        switch name {
        case "gAMA":
            guard payload.count == 4 else { return false }
            let gamma = payload.reduce(0) { $0 << 8 | Int($1) }
            return (16 ... 625_000_000).contains(gamma)
        case "sRGB": return payload.count == 1 && payload[0] <= 3
        case "iCCP":
            guard let nul = payload.prefix(80).firstIndex(of: 0) else { return false }
            return nul >= 1 && nul + 2 < payload.count && payload[nul + 1] == 0
        case "pHYs": return payload.count == 9 && payload[8] <= 1
        case "eXIf": return payload.count >= 2 && (payload.starts(with: [0x4D, 0x4D]) || payload.starts(with: [0x49, 0x49]))
        default: return true
        }
    }
}

/// What a PNG file says about its image, read without decoding pixels.
public struct PNGInfo: Sendable, Equatable {
    /// The validated IHDR fields: size, bit depth, colour type, interlace.
    public let header: PNGHeader
    /// Kept ancillary chunks.
    public var metadata: PNGMetadata
    /// Number of PLTE entries (0 when there is no PLTE).
    public let paletteCount: Int
    /// True when a tRNS chunk gives palette alpha or a colour key.
    public let hasTransparencyChunk: Bool
}
