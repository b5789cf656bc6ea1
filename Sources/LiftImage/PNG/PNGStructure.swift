/// What comes before a PNG's image data: the header, palette, transparency, metadata, and the first IDAT.
struct PNGPreamble {
    let header: PNGHeader
    /// PLTE payload (RGB triples), if any.
    let palette: UnsafeRawBufferPointer?
    /// tRNS payload, if any.
    let transparency: UnsafeRawBufferPointer?
    var metadata: PNGMetadata
    let firstIDAT: PNGChunk

    var info: PNGInfo {
        PNGInfo(header: header, metadata: metadata, paletteCount: (palette?.count ?? 0) / 3, hasTransparencyChunk: transparency != nil)
    }
}

/// Chunk-order rules of the PNG spec, applied while walking the chunks.
enum PNGStructure {
    /// Reads chunks up to and including the first IDAT, validating IHDR, PLTE, tRNS and their order.
    static func readPreamble(_ reader: inout PNGChunkReader, limits: DecodingLimits) throws -> PNGPreamble {
        guard let first = try reader.next() else { throw PNGParsingError.missingIHDR(firstChunk: "(end of file)") }
        guard first.type == .IHDR else { throw PNGParsingError.missingIHDR(firstChunk: first.type.description) }
        let header = try PNGHeader(parsing: first.data)
        try header.check(limits)
        var palette: UnsafeRawBufferPointer?
        var transparency: UnsafeRawBufferPointer?
        var metadata = PNGMetadata()
        while let chunk = try reader.next() {
            switch chunk.type {
            case .IDAT:
                if header.colorType == .palette && palette == nil { throw PNGParsingError.missingPLTE }
                return PNGPreamble(header: header, palette: palette, transparency: transparency, metadata: metadata, firstIDAT: chunk)
            case .PLTE:
                guard palette == nil else { throw PNGParsingError.duplicateChunk(chunk: "PLTE", offset: chunk.offset) }
                guard header.colorType != .gray && header.colorType != .grayAlpha else {
                    throw PNGParsingError.unexpectedPLTE(colorType: header.colorType.rawValue)
                }
                if transparency != nil {
                    throw PNGParsingError.chunkOutOfOrder(chunk: "PLTE", offset: chunk.offset, reason: "PLTE must come before tRNS")
                }
                let entries = chunk.data.count / 3
                let maxEntries = header.colorType == .palette ? 1 << header.bitDepth : 256
                guard chunk.data.count % 3 == 0, entries >= 1, entries <= maxEntries else {
                    throw PNGParsingError.invalidPLTELength(chunk.data.count)
                }
                palette = chunk.data
            case .tRNS:
                guard transparency == nil else { throw PNGParsingError.duplicateChunk(chunk: "tRNS", offset: chunk.offset) }
                if header.colorType == .palette && palette == nil {
                    throw PNGParsingError.chunkOutOfOrder(chunk: "tRNS", offset: chunk.offset, reason: "tRNS must come after PLTE")
                }
                let valid: Bool
                switch header.colorType {
                case .gray: valid = chunk.data.count == 2
                case .rgb: valid = chunk.data.count == 6
                case .palette: valid = chunk.data.count <= (palette?.count ?? 0) / 3
                case .grayAlpha, .rgba: valid = false
                }
                guard valid else { throw PNGParsingError.invalidTRNS(colorType: header.colorType.rawValue, length: chunk.data.count) }
                transparency = chunk.data
            case .IHDR:
                throw PNGParsingError.duplicateChunk(chunk: "IHDR", offset: chunk.offset)
            case .IEND:
                throw PNGParsingError.missingIDAT
            default:
                if chunk.type.isCritical { throw PNGParsingError.unknownCriticalChunk(chunk: chunk.type.description, offset: chunk.offset) }
                metadata.record(chunk)
            }
        }
        throw PNGParsingError.missingIDAT
    }

    /// Reads the chunks after the IDAT run (starting with `next`, the first non-IDAT chunk or nil at
    /// the end of the file) through IEND, recording late metadata (eXIf may follow the image data).
    static func readTrailer(_ reader: inout PNGChunkReader, startingWith next: PNGChunk?, metadata: inout PNGMetadata) throws {
        var current = next
        while let chunk = current {
            switch chunk.type {
            case .IEND:
                return
            case .IDAT:
                throw PNGParsingError.chunkOutOfOrder(chunk: "IDAT", offset: chunk.offset, reason: "IDAT chunks must be consecutive")
            case .IHDR, .PLTE:
                throw PNGParsingError.chunkOutOfOrder(chunk: chunk.type.description, offset: chunk.offset, reason: "it must come before the image data")
            default:
                if chunk.type.isCritical { throw PNGParsingError.unknownCriticalChunk(chunk: chunk.type.description, offset: chunk.offset) }
                if chunk.type == .eXIf { metadata.record(chunk) }
            }
            current = try reader.next()
        }
        throw PNGParsingError.missingIEND
    }
}
