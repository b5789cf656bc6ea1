/// A decoded WebP file: upright pixels plus what the file said about itself.
public struct WebPImage: Sendable, Equatable {
    /// The pixels, RGBA8, straight alpha (255 where the file has no alpha), with the EXIF
    /// orientation applied unless the caller asked not to.
    public var image: RGBAImage
    /// Width as stored in the file (the canvas, before orientation).
    public var storedWidth: Int
    /// Height as stored in the file (the canvas, before orientation).
    public var storedHeight: Int
    /// The EXIF orientation (1…8) found in the `EXIF` chunk; 1 when there is none or it is invalid.
    public var orientation: EXIFOrientation
    /// Whether `image` has `orientation` applied.
    public var orientationApplied: Bool
    /// The ICC profile of the `ICCP` chunk; nil when absent.
    public var iccProfile: [UInt8]?
    /// The EXIF payload (the TIFF structure, without the `Exif\0\0` prefix some writers add); nil when absent.
    public var exif: [UInt8]?
    /// How the file is coded.
    public var info: WebPInfo
}

/// How a WebP file is coded.
public struct WebPInfo: Sendable, Equatable {
    /// The coding of the image data.
    public enum Compression: String, Sendable, Equatable {
        /// VP8 key frame (YUV 4:2:0), possibly with an `ALPH` alpha plane.
        case lossy
        /// VP8L, alpha included.
        case lossless
    }

    /// The coding of the (first frame's) image data.
    public var compression: Compression
    /// Whether the image data carries alpha (a VP8L image, or an `ALPH` chunk); animated files always
    /// count, since their canvas around the first frame is transparent.
    public var hasAlpha: Bool
    /// Number of animation frames (0 for a still image; only the first is decoded).
    public var frameCount: Int
}
