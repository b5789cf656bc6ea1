import Foundation
import Lift
import LiftCLI

/// `lift info FILE` (`-` reads standard input): prints the format, size, colour type, bit depth, interlace and metadata chunks of an
/// image file, one `key: value` line each. PNG files are checked chunk by chunk without decoding pixels;
/// JPEG files are decoded (to check them) and described by their frame, scans and metadata.
/// Returns 0 on success, 1 when the file cannot be read or is invalid, 2 for a usage error.
func runInfo(_ arguments: [String]) -> Int32 {
    guard arguments.count == 1, let path = arguments.first, !path.hasPrefix("-") || path == "-" else {
        return usageFailure("info", "expected one FILE")
    }
    do {
        let bytes = try readInput(path)
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
            if let exif = info.metadata.eXIf {
                let orientation = EXIFOrientation(exif: exif)
                lines.append("orientation: \(orientation.rawValue)"
                             + (orientation.swapsDimensions ? " (shown as \(header.height)x\(header.width))" : ""))
            }
            let chunks = info.metadata.chunks.map { "\($0.name) (\($0.bytes.count) bytes)" }
            lines.append("metadata: \(chunks.isEmpty ? "none" : chunks.joined(separator: ", "))")
            try StandardStream.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: STDOUT_FILENO)
            return 0
        case .jpeg:
            let jpeg = try JPEGDecoder.decode(bytes, options: .init(applyOrientation: false))
            let info = jpeg.info
            let sampling = info.components.map { "\($0.horizontalSampling)x\($0.verticalSampling)" }
            var metadata: [String] = []
            if let exif = jpeg.exif { metadata.append("EXIF (\(exif.count) bytes)") }
            if let icc = jpeg.iccProfile { metadata.append("ICC profile (\(icc.count) bytes)") }
            let lines = [
                "format: JPEG",
                "size: \(jpeg.storedWidth)x\(jpeg.storedHeight)",
                "process: \(info.process.rawValue)",
                "color space: \(info.colorSpace.rawValue)",
                "components: \(info.components.count) (sampling \(sampling.joined(separator: ", ")))",
                "scans: \(info.scanCount)",
                "restart interval: \(info.restartInterval)",
                "orientation: \(jpeg.orientation.rawValue)\(jpeg.orientation.swapsDimensions ? " (shown as \(jpeg.storedHeight)x\(jpeg.storedWidth))" : "")",
                "metadata: \(metadata.isEmpty ? "none" : metadata.joined(separator: ", "))",
            ]
            try StandardStream.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: STDOUT_FILENO)
            return 0
        case nil:
            throw ImageIOError.unknownFormat(leadingBytes: Array(bytes.prefix(8)))
        }
    } catch let error as StandardStream.WriteError {
        return commandFailure("info", error)
    } catch {
        return commandFailure("info", error, path: path)
    }
}
