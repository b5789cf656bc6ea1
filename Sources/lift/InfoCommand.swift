import Foundation
import Lift
import LiftCLI

/// `lift info [--] FILE` (`-` reads standard input): prints the format, size, colour type, bit depth, interlace and metadata chunks of an
/// image file, one `key: value` line each; for an `.onnx` model file, its IR version, operator sets,
/// inputs, outputs, operators and parameter count. PNG files are checked chunk by chunk without decoding pixels;
/// JPEG files are decoded (to check them) and described by their frame, scans and metadata.
/// Returns 0 on success, 1 when the file cannot be read or is invalid (or the lines cannot be written), 2 for a usage error.
func runInfo(_ arguments: [String]) -> Int32 {
    let parsed: ParsedArguments
    do throws(UsageError) {
        parsed = try ArgumentParser(options: infoOptions).parse(arguments)
    } catch {
        return usageFailure("info", error.description)
    }
    if parsed.flag("help") { return printHelp(infoHelp) }
    guard parsed.positionals.count == 1, let path = parsed.positionals.first else { return usageFailure("info", "expected one FILE") }
    do {
        let bytes = try readInput(path)
        let lines: [String]
        switch ImageFormat.sniff(bytes) {
        case .png: lines = try pngLines(bytes)
        case .jpeg: lines = try jpegLines(bytes)
        case .gif: lines = try gifLines(bytes)
        case .webp: lines = try webpLines(bytes)
        case nil where path.lowercased().hasSuffix(".onnx"): lines = try onnxLines(bytes)
        case nil: throw ImageIOError.unknownFormat(leadingBytes: Array(bytes.prefix(8)))
        }
        try StandardStream.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: STDOUT_FILENO)
        return 0
    } catch let error as StandardStream.WriteError {
        return commandFailure("info", error)
    } catch {
        return commandFailure("info", error, path: path)
    }
}

/// `info`'s options.
private let infoOptions = [OptionSpec("help", short: "h", help: "show this help")]

/// `lift info --help`.
private let infoHelp = HelpText.subcommand(
    usage: "lift info [--] FILE",
    summary: ["Prints a PNG's or JPEG's format, size, colour type, bit depth, interlace or scans, orientation and",
              "metadata, one 'key: value' line each, checking the file on the way. FILE '-' is standard input.",
              "For a model file named .onnx: IR version, operator sets, inputs, outputs, operators, parameters."],
    options: infoOptions)

/// An ONNX model's header, interface and contents (`ONNXModel`: the encoding and every tensor are checked).
private func onnxLines(_ bytes: [UInt8]) throws -> [String] {
    let model = try ONNXModel(bytes: bytes)
    let graph = model.graph
    let constants = Set(graph.initializers.map(\.name))
    func describe(_ value: ONNXValueInfo) -> String {
        let type = value.elementType.map { ONNXTensor.typeNames[$0] ?? "type \($0)" } ?? "?"
        return "\(value.name) \(type) [\((value.shape ?? []).map(\.description).joined(separator: ", "))]"
    }
    var operators: [String: Int] = [:]
    for node in graph.nodes { operators[node.domain.isEmpty ? node.opType : "\(node.domain).\(node.opType)", default: 0] += 1 }
    let parameters = graph.initializers.reduce(0) { $0 + $1.elementCount }
    let opsets = model.opsets.sorted { $0.key < $1.key }.map { "\($0.key.isEmpty ? "ai.onnx" : $0.key) \($0.value)" }
    return [
        "format: ONNX",
        "IR version: \(model.irVersion)",
        "operator sets: \(opsets.joined(separator: ", "))",
        "producer: \(model.producer.isEmpty ? "unknown" : model.producer)",
        "inputs: " + graph.inputs.filter { !constants.contains($0.name) }.map(describe).joined(separator: "; "),
        "outputs: " + graph.outputs.map(describe).joined(separator: "; "),
        "nodes: \(graph.nodes.count) (" + operators.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")",
        "parameters: \(parameters) in \(graph.initializers.count) tensors",
    ]
}

/// A PNG's header fields and kept chunks, read without decoding pixels.
private func pngLines(_ bytes: [UInt8]) throws -> [String] {
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
private func jpegLines(_ bytes: [UInt8]) throws -> [String] {
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
private func gifLines(_ bytes: [UInt8]) throws -> [String] {
    let info = try GIFDecoder.readInfo(bytes)
    return ["format: GIF", "size: \(info.width)x\(info.height)", "frames: \(info.frameCount)"]
}

/// `lift info` for a WebP: the stored size, compression, alpha, frames, orientation and metadata.
private func webpLines(_ bytes: [UInt8]) throws -> [String] {
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
private func orientationLine(_ orientation: EXIFOrientation, width: Int, height: Int) -> String {
    "orientation: \(orientation.rawValue)" + (orientation.swapsDimensions ? " (shown as \(height)x\(width))" : "")
}
