import Foundation
import Lift

/// `lift info FILE`: prints the format, size, colour type, bit depth, interlace and metadata chunks of an
/// image file, one `key: value` line each. PNG files are checked chunk by chunk without decoding pixels.
/// Returns 0 on success, 1 when the file cannot be read or is invalid, 2 for a usage error.
func runInfo(_ arguments: [String]) -> Int32 {
    guard arguments.count == 1, let path = arguments.first, !path.hasPrefix("-") || path == "-" else {
        return usageFailure("info", "expected one FILE")
    }
    do {
        let bytes = try ImageIO.readFile(path)
        switch ImageFormat.sniff(bytes) {
        case .png:
            let info = try PNGDecoder.readInfo(bytes)
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
            let chunks = info.metadata.chunks.map { "\($0.name) (\($0.bytes.count) bytes)" }
            lines.append("metadata: \(chunks.isEmpty ? "none" : chunks.joined(separator: ", "))")
            print(lines.joined(separator: "\n"))
            return 0
        case .jpeg:
            print("format: JPEG")
            throw ImageIOError.unsupportedFormat(.jpeg)
        case nil:
            throw ImageIOError.unknownFormat(leadingBytes: Array(bytes.prefix(8)))
        }
    } catch {
        return commandFailure("info", error)
    }
}
