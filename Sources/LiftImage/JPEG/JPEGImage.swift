/// A decoded JPEG: upright pixels plus what the file said about itself.
public struct JPEGImage: Sendable, Equatable {
    /// The pixels, RGBA8 with alpha 255, with the EXIF orientation applied unless the caller asked not to.
    public var image: RGBAImage
    /// Width as stored in the file (before orientation).
    public var storedWidth: Int
    /// Height as stored in the file (before orientation).
    public var storedHeight: Int
    /// The EXIF orientation (1…8) found in APP1; 1 when there is none or it is invalid.
    public var orientation: EXIFOrientation
    /// Whether `image` has `orientation` applied.
    public var orientationApplied: Bool
    /// The ICC profile, reassembled from its APP2 `ICC_PROFILE` chunks; nil when absent or inconsistent.
    public var iccProfile: [UInt8]?
    /// The EXIF payload of APP1 (the TIFF structure after `Exif\0\0`); nil when absent.
    public var exif: [UInt8]?
    /// How the file is coded.
    public var info: JPEGInfo
}

/// How a JPEG file is coded: process, components and their sampling, colour space.
public struct JPEGInfo: Sendable, Equatable {
    /// The coding process of the frame.
    public enum Process: String, Sendable, Equatable {
        /// SOF0: baseline sequential Huffman.
        case baseline
        /// SOF1: extended sequential Huffman, 8-bit.
        case extendedSequential
        /// SOF2: progressive Huffman.
        case progressive
    }

    /// The colour space of the stored components, decided as libjpeg does (JFIF, Adobe APP14, ids).
    public enum ColorSpace: String, Sendable, Equatable {
        case grayscale, yCbCr, rgb, cmyk, ycck
    }

    /// One component of the frame: its id and sampling factors (1…4).
    public struct Component: Sendable, Equatable {
        /// The component identifier from the frame header (SOFn).
        public var id: UInt8
        /// Horizontal sampling factor, 1…4.
        public var horizontalSampling: Int
        /// Vertical sampling factor, 1…4.
        public var verticalSampling: Int
    }

    /// The coding process.
    public var process: Process
    /// The colour space of the stored samples.
    public var colorSpace: ColorSpace
    /// The frame's components in file order.
    public var components: [Component]
    /// Number of scans decoded.
    public var scanCount: Int
    /// The restart interval in MCUs last defined (0 when none).
    public var restartInterval: Int
}
