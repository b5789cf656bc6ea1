import Foundation

/// An image file format Lift recognises by content.
public enum ImageFormat: String, Sendable, Equatable, CustomStringConvertible {
    /// PNG (decoded and encoded by `PNGDecoder` / `PNGEncoder`).
    case png
    /// JPEG (baseline and progressive).
    case jpeg

    /// The format `bytes` start with (PNG signature, JPEG SOI + marker), or nil when neither.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.count >= 8, bytes.prefix(8).elementsEqual(pngSignature) { return .png }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        return nil
    }

    public var description: String { self == .png ? "PNG" : "JPEG" }
}

/// An error reading or recognising an image file, before or around a format's own decoder.
public enum ImageIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not a format Lift knows; carries the first bytes seen.
    case unknownFormat(leadingBytes: [UInt8])
    /// The format was recognised but this build cannot decode it.
    case unsupportedFormat(ImageFormat)
    /// The file could not be read.
    case cannotRead(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownFormat(let bytes):
            return "unknown image format: the file starts with \(hexString(bytes)), which is neither PNG nor JPEG"
        case .unsupportedFormat(let format):
            return "\(format) images cannot be decoded by this build yet"
        case .cannotRead(let path, let reason):
            return "cannot read \(path): \(reason)"
        }
    }
}

/// One entry point for reading and writing images: content sniffing, decoding any supported format to
/// RGBA8, and atomic PNG writes.
public enum ImageIO {
    /// Decodes `bytes` (a whole file of any supported format, found by content) to RGBA8, straight alpha.
    /// Throws `ImageIOError` for unknown or unsupported formats, else the format decoder's errors.
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default) throws -> RGBAImage {
        switch ImageFormat.sniff(bytes) {
        case .png: return try PNGDecoder.decode(bytes, limits: limits).image
        case .jpeg: throw ImageIOError.unsupportedFormat(.jpeg)
        case nil: throw ImageIOError.unknownFormat(leadingBytes: Array(bytes.prefix(8)))
        }
    }

    /// The bytes of the file at `path`.
    public static func readFile(_ path: String) throws(ImageIOError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw .cannotRead(path: path, reason: exists ? "permission denied or not a regular file" : "no such file")
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.readToEnd() ?? Data())
        } catch {
            throw .cannotRead(path: path, reason: "\(error.localizedDescription)")
        }
    }

    /// Reads and decodes the image file at `path` to RGBA8.
    public static func read(contentsOf path: String, limits: DecodingLimits = .default) throws -> RGBAImage {
        try decode(try readFile(path), limits: limits)
    }

    /// Encodes `image` as PNG and writes it atomically (temporary file + rename) to `path`.
    public static func writePNG(_ image: RGBAImage, to path: String, options: PNGEncoder.Options = .standard) throws {
        try AtomicFile.write(try PNGEncoder.encode(image, options: options), to: path)
    }

    /// Encodes a grey image or mask as PNG and writes it atomically to `path`.
    public static func writePNG(_ image: GrayImage, to path: String, options: PNGEncoder.Options = .standard) throws {
        try AtomicFile.write(try PNGEncoder.encode(image, options: options), to: path)
    }
}
