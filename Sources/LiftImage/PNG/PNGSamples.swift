/// Pixels handed to the PNG encoder: a layout (grey, grey+alpha, RGB, RGBA) and 8- or 16-bit samples.
///
/// Layout: row-major, interleaved, no row padding; `width * height * layout.channels` samples.
public struct PNGSamples: Sendable {
    /// Channel layout of the samples.
    public enum Layout: Sendable, Equatable {
        /// One grey sample per pixel.
        case gray
        /// Grey then alpha.
        case grayAlpha
        /// Red, green, blue.
        case rgb
        /// Red, green, blue, alpha (straight).
        case rgba

        /// Samples per pixel.
        public var channels: Int {
            switch self {
            case .gray: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }

        var colorType: PNGColorType {
            switch self {
            case .gray: .gray
            case .grayAlpha: .grayAlpha
            case .rgb: .rgb
            case .rgba: .rgba
            }
        }
    }

    /// Sample storage: 8-bit or 16-bit (host-endian) values.
    public enum Storage: Sendable {
        /// 8-bit samples.
        case eight([UInt8])
        /// 16-bit samples, host-endian.
        case sixteen([UInt16])
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Channel layout.
    public let layout: Layout
    /// The samples.
    public let storage: Storage

    /// Wraps samples; the encoder checks that the count matches the size and layout.
    public init(width: Int, height: Int, layout: Layout, storage: Storage) {
        self.width = width
        self.height = height
        self.layout = layout
        self.storage = storage
    }

    /// An RGBA8 image's pixels.
    public init(_ image: RGBAImage) { self.init(width: image.width, height: image.height, layout: .rgba, storage: .eight(image.pixels)) }

    /// A grey 8-bit image's pixels.
    public init(_ image: GrayImage) { self.init(width: image.width, height: image.height, layout: .gray, storage: .eight(image.pixels)) }

    /// An RGBA16 image's pixels.
    public init(_ image: RGBA16Image) { self.init(width: image.width, height: image.height, layout: .rgba, storage: .sixteen(image.pixels)) }
}
