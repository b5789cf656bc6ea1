import Lift

extension InfoCommand {
    /// A PNG's header fields and kept chunks, read without decoding pixels.
    static func pngLines(_ bytes: [UInt8]) throws -> [String] {
        // Describing a file allocates no pixels, so a photo too big to cut out here is still described.
        let info = try PNGDecoder.readInfo(bytes, limits: DecodingLimits(maxMemoryBytes: .max))
        let header = info.header
        var lines = [
            "format: PNG",
            "size: \(header.width)x\(header.height)",
            "color type: \(header.colorType) (\(header.colorType.rawValue))",
            "bit depth: \(header.bitDepth)",
            "interlace: \(header.interlaced ? "Adam7" : "none")",
        ]
        if info.paletteCount > 0 { lines.append("palette entries: \(info.paletteCount)") }
        if info.hasTransparencyChunk { lines.append("transparency: tRNS") }
        if let exif = info.metadata.eXIf {
            lines.append(orientationLine(EXIFOrientation(exif: exif), width: header.width, height: header.height))
        }
        let chunks = info.metadata.chunks.map { "\($0.name) (\($0.bytes.count) bytes)" }
        lines.append("metadata: \(chunks.isEmpty ? "none" : chunks.joined(separator: ", "))")
        return lines
    }

    /// A JPEG's frame, scans and metadata (decoded in full, which checks it).
    static func jpegLines(_ bytes: [UInt8]) throws -> [String] {
        let jpeg = try JPEGDecoder.decode(bytes, options: .init(applyOrientation: false))
        let info = jpeg.info
        let sampling = info.components.map { "\($0.horizontalSampling)x\($0.verticalSampling)" }
        var metadata: [String] = []
        if let exif = jpeg.exif { metadata.append("EXIF (\(exif.count) bytes)") }
        if let icc = jpeg.iccProfile { metadata.append("ICC profile (\(icc.count) bytes)") }
        return [
            "format: JPEG",
            "size: \(jpeg.storedWidth)x\(jpeg.storedHeight)",
            "process: \(info.process.rawValue)",
            "color space: \(info.colorSpace.rawValue)",
            "components: \(info.components.count) (sampling \(sampling.joined(separator: ", ")))",
            "scans: \(info.scanCount)",
            "restart interval: \(info.restartInterval)",
            orientationLine(jpeg.orientation, width: jpeg.storedWidth, height: jpeg.storedHeight),
            "metadata: \(metadata.isEmpty ? "none" : metadata.joined(separator: ", "))",
        ]
    }

    /// `lift info` for a GIF: the canvas size and the frame count.
    static func gifLines(_ bytes: [UInt8]) throws -> [String] {
        let info = try GIFDecoder.readInfo(bytes)
        return ["format: GIF", "size: \(info.width)x\(info.height)", "frames: \(info.frameCount)"]
    }

    /// `lift info` for a WebP: the stored size, compression, alpha, frames, orientation and metadata.
    static func webpLines(_ bytes: [UInt8]) throws -> [String] {
        let webp = try WebPDecoder.decode(bytes, options: .init(applyOrientation: false))
        var metadata: [String] = []
        if let exif = webp.exif { metadata.append("EXIF (\(exif.count) bytes)") }
        if let icc = webp.iccProfile { metadata.append("ICC profile (\(icc.count) bytes)") }
        return [
            "format: WebP",
            "size: \(webp.storedWidth)x\(webp.storedHeight)",
            "compression: \(webp.info.compression.rawValue)",
            "alpha: \(webp.info.hasAlpha ? "yes" : "no")",
            "frames: \(max(webp.info.frameCount, 1))" + (webp.info.frameCount > 1 ? " (the first is shown)" : ""),
            orientationLine(webp.orientation, width: webp.storedWidth, height: webp.storedHeight),
            "metadata: \(metadata.isEmpty ? "none" : metadata.joined(separator: ", "))",
        ]
    }

    /// `orientation: N`, with the size a viewer shows when the orientation turns the stored `width × height`.
    static func orientationLine(_ orientation: EXIFOrientation, width: Int, height: Int) -> String {
        "orientation: \(orientation.rawValue)" + (orientation.swapsDimensions ? " (shown as \(height)x\(width))" : "")
    }
}
