import LiftParallel

/// Encodes RGBA images as lossless WebP (VP8L, RFC 9649 §3), alpha included: the natural format of a
/// cut-out. The image goes through the subtract-green and predictor transforms (a mode chosen per
/// 16×16 tile), then is coded with LZ77 copies found by a hash chain, a colour cache, and one group of
/// prefix codes built from its histograms (lengths limited to 15 bits).
///
/// Pixels with alpha 0 have their RGB set to 0 unless `Options.keepTransparentRGB` is set (they
/// are invisible, and uniform zeros compress far better); every other pixel is stored exactly.
public enum WebPEncoder {
    /// Choices that change the output.
    public struct Options: Sendable, Equatable {
        /// How hard to search for copies, 0…9: each step doubles the hash-chain candidates tried at
        /// each pixel (1 at 0, 32 at the default 5, 512 at 9).
        public var effort: Int
        /// Keep the RGB values of fully transparent pixels instead of zeroing them.
        public var keepTransparentRGB: Bool
        /// An ICC profile to embed (`ICCP` chunk, in the extended container); nil: none.
        public var iccProfile: [UInt8]?
        /// Threads for the predictor search (the bytes do not depend on it); `nil`: every active processor.
        public var threads: Int?

        /// Options with the defaults above.
        public init(effort: Int = 5, keepTransparentRGB: Bool = false, iccProfile: [UInt8]? = nil, threads: Int? = nil) {
            self.effort = effort
            self.keepTransparentRGB = keepTransparentRGB
            self.iccProfile = iccProfile
            self.threads = threads
        }
    }

    /// The largest width or height a lossless WebP codes (14-bit fields).
    public static let maxDimension = 16384
    /// Colour cache size of the main image, in bits.
    static let cacheBits = 10
    /// Predictor tile size, in bits (16×16 tiles).
    static let predictorBits = 4

    /// Encodes `image` as a lossless WebP file.
    /// - Throws: `WebPEncoderError.unsupportedSize` for an empty image or a side over 16384 pixels.
    public static func encode(_ image: RGBAImage, options: Options = Options()) throws(WebPEncoderError) -> [UInt8] {
        guard (1 ... maxDimension).contains(image.width), (1 ... maxDimension).contains(image.height) else {
            throw .unsupportedSize(width: image.width, height: image.height)
        }
        let stream = losslessStream(image, options: options)
        guard let profile = options.iccProfile, !profile.isEmpty else { return riff([("VP8L", stream)]) }
        let alphaFlag: UInt8 = image.isOpaque ? 0 : 0x10, iccFlag: UInt8 = 0x20
        let width = image.width - 1, height = image.height - 1
        let header: [UInt8] = [iccFlag | alphaFlag, 0, 0, 0, UInt8(width & 0xFF), UInt8((width >> 8) & 0xFF), UInt8(width >> 16),
                               UInt8(height & 0xFF), UInt8((height >> 8) & 0xFF), UInt8(height >> 16)]
        return riff([("VP8X", header), ("ICCP", profile), ("VP8L", stream)])
    }

    /// The `VP8L` chunk's payload: header, transforms, main image.
    static func losslessStream(_ image: RGBAImage, options: Options) -> [UInt8] {
        let width = image.width, height = image.height
        var argb = [UInt32](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { rgba in
            argb.withUnsafeMutableBufferPointer { out in
                for i in 0 ..< width * height {
                    let alpha = UInt32(rgba[4 &* i &+ 3])
                    out[i] = alpha == 0 && !options.keepTransparentRGB ? 0
                        : alpha << 24 | UInt32(rgba[4 &* i]) << 16 | UInt32(rgba[4 &* i &+ 1]) << 8 | UInt32(rgba[4 &* i &+ 2])
                }
            }
        }
        let chainDepth = 1 << min(max(options.effort, 0), 9)
        var writer = VP8LBitWriter(capacity: width * height + 1024)
        writer.write(Int(VP8LDecoder.signature), 8)
        writer.write(width - 1, 14)
        writer.write(height - 1, 14)
        writer.write(image.isOpaque ? 0 : 1, 1)
        writer.write(0, 3)
        VP8LEncoderTransforms.subtractGreen(&argb)
        writer.write(1, 1)
        writer.write(2, 2)
        let (modes, residuals) = VP8LEncoderTransforms.predict(argb, width: width, height: height, bits: predictorBits,
                                                               threads: options.threads ?? Parallel.defaultThreads)
        writer.write(1, 1)
        writer.write(0, 2)
        writer.write(predictorBits - 2, 3)
        let modeTokens = modes.withUnsafeBufferPointer {
            VP8LBackwardReferences.tokens($0, width: VP8LTransform.subsampled(width, bits: predictorBits), cacheBits: 0, chainDepth: chainDepth)
        }
        VP8LEntropyWriter.write(modeTokens, cacheBits: 0, isMain: false, to: &writer)
        writer.write(0, 1)
        let tokens = residuals.withUnsafeBufferPointer {
            VP8LBackwardReferences.tokens($0, width: width, cacheBits: cacheBits, chainDepth: chainDepth)
        }
        VP8LEntropyWriter.write(tokens, cacheBits: cacheBits, isMain: true, to: &writer)
        return writer.finish()
    }

    /// A RIFF/WEBP file of `chunks` (FourCC, payload), odd payloads padded with a zero byte.
    static func riff(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        let body = chunks.reduce(into: Array("WEBP".utf8)) { file, chunk in
            file += Array(chunk.0.utf8) + littleEndian32(chunk.1.count) + chunk.1
            if chunk.1.count & 1 == 1 { file.append(0) }
        }
        return Array("RIFF".utf8) + littleEndian32(body.count) + body
    }

    private static func littleEndian32(_ value: Int) -> [UInt8] {
        (0 ..< 4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

/// Why an image could not be encoded as WebP.
public enum WebPEncoderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The image is empty or has a side over `WebPEncoder.maxDimension` pixels.
    case unsupportedSize(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .unsupportedSize(width, height):
            return "cannot encode a \(width)×\(height) image as WebP: each side must be 1 to \(WebPEncoder.maxDimension) pixels"
        }
    }
}
