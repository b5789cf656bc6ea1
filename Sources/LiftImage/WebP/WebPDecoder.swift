import LiftParallel

/// Decodes WebP files (RFC 9649) to RGBA8: lossless (VP8L) and lossy (VP8 key frames, RFC 6386) images,
/// alpha (VP8L's own, or an `ALPH` plane beside VP8), the ICC profile and EXIF metadata, applying the
/// EXIF orientation. Pixels are bit-exact with libwebp's default decode (`dwebp -pam`, Pillow):
/// lossy images use its "fancy" chroma upsampling and fixed-point YUV → RGB conversion.
///
/// An animated file decodes to its first frame placed on a transparent canvas of the animation's size
/// (what libwebp's animation decoder shows first); the other frames are counted, not decoded.
///
/// Besides `DecodingLimits` (checked from the headers, before any pixel memory is allocated), a
/// lossy frame's first partition must be large enough for the macroblocks it claims: each costs at
/// least 1.5 bits there, so a small file cannot claim a huge frame.
public enum WebPDecoder {
    /// Choices that change the output.
    public struct Options: Sendable, Equatable {
        /// Rotate/flip the pixels upright according to the EXIF orientation (default true).
        public var applyOrientation: Bool
        /// Threads for the stages that split into row bands (lossy colour conversion; the pixels do
        /// not depend on it); `nil`: every active processor.
        public var threads: Int?

        /// Options with the defaults above.
        public init(applyOrientation: Bool = true, threads: Int? = nil) {
            self.applyOrientation = applyOrientation
            self.threads = threads
        }
    }

    /// Decodes a whole WebP file.
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - limits: size limits, checked before any large allocation.
    ///   - options: whether to apply the EXIF orientation, threads.
    /// - Returns: the upright RGBA image with metadata.
    /// - Throws: `WebPError` naming the chunk, or the bitstream rule, that the file breaks.
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default,
                              options: Options = Options()) throws(WebPError) -> WebPImage {
        let result: Result<WebPImage, WebPError> = bytes.withUnsafeBufferPointer { file in
            do throws(WebPError) {
                return .success(try decode(file: file, limits: limits, options: options))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func decode(file: UnsafeBufferPointer<UInt8>, limits: DecodingLimits, options: Options) throws(WebPError) -> WebPImage {
        let container = try WebPContainer(file, limits: limits)
        let image = container.image
        let data = UnsafeBufferPointer(rebasing: file[image.data])
        let threads = options.threads ?? Parallel.defaultThreads
        let (width, height): (Int, Int)
        let hasAlpha: Bool
        switch image.bitstream {
        case .lossless:
            let header = try VP8LDecoder.readHeader(data)
            (width, height, hasAlpha) = (header.width, header.height, header.alphaIsUsed)
        case .lossy:
            let header = try VP8FrameHeader(data)
            (width, height, hasAlpha) = (header.width, header.height, image.alpha != nil)
        }
        if let frame = container.firstFrame {
            guard frame.width == width, frame.height == height else {
                throw .sizeMismatch(canvasWidth: frame.width, canvasHeight: frame.height, imageWidth: width, imageHeight: height)
            }
        } else if let canvas = container.canvas, canvas.width != width || canvas.height != height {
            throw .sizeMismatch(canvasWidth: canvas.width, canvasHeight: canvas.height, imageWidth: width, imageHeight: height)
        }
        let canvas = container.canvas ?? (width, height)
        try checkLimits(width: canvas.width, height: canvas.height, limits: limits)
        var pixels: [UInt8]
        switch image.bitstream {
        case .lossless:
            var decoder = VP8LDecoder(UnsafeBufferPointer(rebasing: data[VP8LDecoder.headerSize...]), limits: limits)
            pixels = rgba(fromARGB: try decoder.decodeImage(width: width, height: height))
        case .lossy:
            pixels = try VP8Decoder.decodeRGBA(data, limits: limits, threads: threads)
            if let alpha = image.alpha {
                try WebPAlpha.decode(UnsafeBufferPointer(rebasing: file[alpha]), width: width, height: height,
                                     limits: limits, into: &pixels)
            }
        }
        if let frame = container.firstFrame {
            pixels = place(pixels, frame: frame, canvasWidth: canvas.width, canvasHeight: canvas.height)
        }
        let stored = RGBAImage(width: canvas.width, height: canvas.height, pixels: pixels)
        let exif = container.exif.map { exifPayload(Array(file[$0])) }
        let orientation = exif.map { EXIFOrientation(exif: $0) } ?? .up
        let info = WebPInfo(compression: image.bitstream == .lossless ? .lossless : .lossy,
                            hasAlpha: hasAlpha || container.firstFrame != nil, frameCount: container.frameCount)
        return WebPImage(image: options.applyOrientation ? orientation.apply(to: stored) : stored,
                         storedWidth: canvas.width, storedHeight: canvas.height, orientation: orientation,
                         orientationApplied: options.applyOrientation, iccProfile: container.iccProfile.map { Array(file[$0]) },
                         exif: exif, info: info)
    }

    /// Refuses a `width × height` image over the limits: dimension, pixel count, memory budget, and
    /// decoded bytes (the RGBA output plus as much again for the planes decoding needs).
    static func checkLimits(width: Int, height: Int, limits: DecodingLimits) throws(WebPError) {
        guard max(width, height) <= limits.maxDimension else {
            throw .limitExceeded(what: "dimension", value: max(width, height), limit: limits.maxDimension)
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= limits.maxPixels else {
            throw .limitExceeded(what: "pixel count", value: overflow ? Int.max : pixels, limit: limits.maxPixels)
        }
        guard MemoryBudget.estimate(width: width, height: height) <= limits.maxMemoryBytes else {
            throw .overMemoryBudget(width: width, height: height, budget: limits.maxMemoryBytes)
        }
        let (decodedBytes, overflow2) = pixels.multipliedReportingOverflow(by: 8)
        guard !overflow2, decodedBytes <= limits.maxInflatedBytes else {
            throw .limitExceeded(what: "decoded size in bytes", value: overflow2 ? Int.max : decodedBytes, limit: limits.maxInflatedBytes)
        }
    }

    /// ARGB words (alpha in the high byte) as interleaved RGBA bytes.
    static func rgba(fromARGB argb: [UInt32]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: argb.count * 4) { out, initialized in
            argb.withUnsafeBufferPointer { source in
                for (i, pixel) in source.enumerated() {
                    out[4 &* i] = UInt8(truncatingIfNeeded: pixel >> 16)
                    out[4 &* i &+ 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                    out[4 &* i &+ 2] = UInt8(truncatingIfNeeded: pixel)
                    out[4 &* i &+ 3] = UInt8(truncatingIfNeeded: pixel >> 24)
                }
            }
            initialized = argb.count * 4
        }
    }

    /// The first frame's RGBA pixels at its place on a transparent black canvas. libwebp's animation
    /// decoder does not blend the first frame (there is nothing under it), so its pixels are kept as decoded.
    private static func place(_ frame: [UInt8], frame placement: WebPContainer.Frame, canvasWidth: Int, canvasHeight: Int) -> [UInt8] {
        var canvas = [UInt8](repeating: 0, count: canvasWidth * canvasHeight * 4)
        let rowBytes = placement.width * 4
        for y in 0 ..< placement.height {
            let target = ((placement.y + y) * canvasWidth + placement.x) * 4
            canvas.replaceSubrange(target ..< target + rowBytes, with: frame[y * rowBytes ..< (y + 1) * rowBytes])
        }
        return canvas
    }

    /// The TIFF structure of an `EXIF` payload: the spec stores it bare, some writers prefix `Exif\0\0`.
    private static func exifPayload(_ payload: [UInt8]) -> [UInt8] {
        let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        return payload.starts(with: prefix) ? Array(payload.dropFirst(prefix.count)) : payload
    }
}
