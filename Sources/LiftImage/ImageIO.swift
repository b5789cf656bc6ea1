import Foundation

/// An image file format Lift recognises by content.
public enum ImageFormat: String, Sendable, Equatable, CustomStringConvertible {
    /// PNG (decoded and encoded by `PNGDecoder` / `PNGEncoder`).
    case png
    /// JPEG (baseline and progressive; encoded by `JPEGEncoder`).
    case jpeg
    /// GIF87a / GIF89a (decoded by `GIFDecoder`, first frame).
    case gif
    /// WebP (lossy, lossless, alpha; decoded by `WebPDecoder`, lossless encoded by `WebPEncoder`).
    case webp

    /// The format `bytes` start with (PNG signature, JPEG SOI, `GIF87a`/`GIF89a`, `RIFF` size `WEBP`),
    /// or nil when none. A file that starts with the JPEG SOI marker counts as JPEG however broken the
    /// rest, so that the JPEG decoder says what is wrong with it; likewise for WebP's 12-byte RIFF header.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.count >= 8, bytes.prefix(8).elementsEqual(pngSignature) { return .png }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 { return .jpeg }
        if bytes.count >= 6, bytes.prefix(6).elementsEqual("GIF87a".utf8) || bytes.prefix(6).elementsEqual("GIF89a".utf8) { return .gif }
        if bytes.count >= 12, bytes.prefix(4).elementsEqual("RIFF".utf8), bytes[8 ..< 12].elementsEqual("WEBP".utf8) { return .webp }
        return nil
    }

    /// The most leading bytes `sniff` looks at (WebP's RIFF header).
    public static let sniffLength = 12

    public var description: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }
}

/// An error reading or recognising an image file, before or around a format's own decoder.
public enum ImageIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not a format Lift knows; carries the first bytes seen.
    case unknownFormat(leadingBytes: [UInt8])
    /// The file could not be read: the system's reason, or "it is a directory".
    case cannotRead(path: String, reason: String)
    /// The file or stream is larger than `limit` bytes, the most read into memory.
    case fileTooLarge(path: String, limit: Int)

    public var description: String {
        switch self {
        case .unknownFormat(let bytes):
            return "unknown image format: the file starts with \(hexString(bytes)), which is not PNG, JPEG, GIF or WebP"
        case .cannotRead(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .fileTooLarge(let path, let limit):
            return "cannot read \(path): it is larger than \(limit) bytes, the most read into memory"
        }
    }
}

/// A decoded photo and how its colours are to be read.
public struct DecodedPhoto: Sendable {
    /// The pixels, RGBA8, straight alpha, upright.
    public var image: RGBAImage
    /// Colour chunks for PNGs made from these pixels (empty when the file says nothing about colour).
    public var color: PNGMetadata

    /// A photo from its parts.
    public init(image: RGBAImage, color: PNGMetadata) {
        self.image = image
        self.color = color
    }
}

/// One entry point for reading and writing images: content sniffing, decoding any supported format to
/// RGBA8, reading files with a size cap (`ImageIO+ReadFile.swift`), and atomic PNG, JPEG and WebP writes.
public enum ImageIO {
    /// Decodes `bytes` (a whole file of any supported format, found by content) to RGBA8, straight alpha,
    /// upright: the EXIF orientation (JPEG APP1, PNG eXIf, WebP EXIF) is applied unless `applyOrientation` is false.
    /// Throws `ImageIOError` for unknown formats, else the format decoder's errors (`JPEGError`,
    /// `PNGLexingError`, `PNGParsingError`, `PNGDataError`, `GIFError`, `WebPError`). A GIF gives its first
    /// frame. `threads`: for the JPEG and WebP decoders' parallel stages (`nil`: every core; the pixels
    /// do not depend on it).
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default,
                              applyOrientation: Bool = true, threads: Int? = nil) throws -> RGBAImage {
        try decodePhoto(bytes, limits: limits, applyOrientation: applyOrientation, threads: threads).image
    }

    /// Decodes like `decode` and also returns the file's colour description as PNG chunks to write into
    /// images made from its pixels (`PNGMetadata.colorOnly` of a PNG: gAMA, sRGB, iCCP; a JPEG's or
    /// WebP's ICC profile as iCCP), so that a cut-out shows the photo's colours in colour-managed viewers.
    public static func decodePhoto(_ bytes: [UInt8], limits: DecodingLimits = .default,
                                   applyOrientation: Bool = true, threads: Int? = nil) throws -> DecodedPhoto {
        switch ImageFormat.sniff(bytes) {
        case .png:
            let decoded = try PNGDecoder.decode(bytes, limits: limits)
            let color = decoded.info.metadata.colorOnly
            guard applyOrientation, let exif = decoded.info.metadata.eXIf else { return DecodedPhoto(image: decoded.image, color: color) }
            return DecodedPhoto(image: EXIFOrientation(exif: exif).apply(to: decoded.image), color: color)
        case .jpeg:
            let jpeg = try JPEGDecoder.decode(bytes, limits: limits,
                                              options: .init(applyOrientation: applyOrientation, threads: threads))
            return DecodedPhoto(image: jpeg.image, color: PNGMetadata(iCCP: jpeg.iccProfile.flatMap(PNGColorProfile.chunkPayload)))
        case .gif:
            return DecodedPhoto(image: try GIFDecoder.decode(bytes, limits: limits), color: PNGMetadata())
        case .webp:
            let webp = try WebPDecoder.decode(bytes, limits: limits, options: .init(applyOrientation: applyOrientation, threads: threads))
            return DecodedPhoto(image: webp.image, color: PNGMetadata(iCCP: webp.iccProfile.flatMap(PNGColorProfile.chunkPayload)))
        case nil: throw ImageIOError.unknownFormat(leadingBytes: Array(bytes.prefix(8)))
        }
    }

    /// Reads and decodes the image file at `path` to RGBA8, upright (see `decode`).
    public static func read(contentsOf path: String, limits: DecodingLimits = .default) throws -> RGBAImage {
        try decode(try readFile(path), limits: limits)
    }

    /// Encodes `image` as PNG and writes it atomically (temporary file + rename) to `path`.
    public static func writePNG(_ image: RGBAImage, to path: String, options: PNGEncoder.Options = .standard) throws {
        try AtomicFile.write(try PNGEncoder.encode(image, options: options), to: path)
    }

    /// Encodes `image` as lossless WebP (`WebPEncoder`: RGB of fully transparent pixels zeroed, every
    /// other pixel exact), embedding the ICC profile of `color`'s iCCP chunk (a decoded photo's colour
    /// description, `DecodedPhoto.color`) so that colour-managed viewers show the photo's colours.
    public static func encodeWebP(_ image: RGBAImage, color: PNGMetadata = PNGMetadata(),
                                  options: WebPEncoder.Options = WebPEncoder.Options()) throws(WebPEncoderError) -> [UInt8] {
        var options = options
        if options.iccProfile == nil, let chunk = color.iCCP, PNGColorProfile.colorSpace(ofChunk: chunk) == .rgb {
            options.iccProfile = PNGColorProfile.profile(fromChunk: chunk)
        }
        return try WebPEncoder.encode(image, options: options)
    }

    /// Encodes `image` as lossless WebP (see `encodeWebP`) and writes it atomically to `path`.
    public static func writeWebP(_ image: RGBAImage, to path: String, color: PNGMetadata = PNGMetadata(),
                                 options: WebPEncoder.Options = WebPEncoder.Options()) throws {
        try AtomicFile.write(try encodeWebP(image, color: color, options: options), to: path)
    }

    /// Encodes a grey image or mask as PNG and writes it atomically to `path`.
    public static func writePNG(_ image: GrayImage, to path: String, options: PNGEncoder.Options = .standard) throws {
        try AtomicFile.write(try PNGEncoder.encode(image, options: options), to: path)
    }

    /// Encodes an opaque image as JPEG and writes it atomically to `path`. Throws
    /// `JPEGEncodingError.transparentPixel` when a pixel's alpha is not 255 (composite it on a
    /// background first).
    public static func writeJPEG(_ image: RGBAImage, to path: String, options: JPEGEncoder.Options = .init()) throws {
        try AtomicFile.write(try JPEGEncoder.encode(image, options: options), to: path)
    }

    /// Encodes a grey image or mask as a one-component JPEG and writes it atomically to `path`.
    public static func writeJPEG(_ image: GrayImage, to path: String, options: JPEGEncoder.Options = .init()) throws {
        try AtomicFile.write(try JPEGEncoder.encode(image, options: options), to: path)
    }
}
