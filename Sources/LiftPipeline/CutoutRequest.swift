import Lift

/// Everything one cut-out asks for, whichever surface it came from (`lift`'s flags, rembg's verbs,
/// an HTTP request's fields): which model, which subjects, what replaces the background, how the
/// result is framed, and which images come back in which format. `CutoutPipeline.run` turns a
/// decoded photo and a request into encoded images; the surfaces only parse into this value
/// (`CutoutRequest(parsing:)`, from `CutoutOption.table`) and deliver what comes out.
public struct CutoutRequest: Sendable, Equatable {
    /// The model; `nil` picks `subject` when its weights exist, else `person` (or a server's default).
    public var model: ModelName?
    /// Model passes, input resolution and edge refinement.
    public var quality: Quality = .balanced
    /// Which subjects to keep, by number.
    public var instances: InstanceSelection = .all
    /// Keep only the subject under this point (photo pixels, x right, y down), when set.
    public var point: PixelPoint?
    /// Where the subjects come from: the mask's connected components or the model's instance heads.
    public var instancesBy: InstanceSource = .components
    /// What replaces the background of the cut-out.
    public var background: Background = .transparent
    /// Crop to the kept subjects, when set.
    public var crop: CropOption?
    /// Cap on the longer side of the cut-out, in pixels.
    public var maxSize: Int?
    /// Probability (0…1) from which a pixel belongs to a subject; `nil` keeps the default (0.5).
    public var threshold: Float?
    /// Edge refinement with the photo as guide: `nil` as the quality says (off at `fast`), or forced
    /// off (`--no-refine`) or on (rembg's alpha matting, `a`).
    public var refine: Bool?
    /// Give partly transparent edge pixels their estimated foreground colour; opaque pixels keep the
    /// photo's colour either way.
    public var decontaminate = true
    /// The images to encode and how.
    public var outputs = CutoutOutputs()

    /// A request with every default: the `subject` model at `balanced`, every subject, transparent,
    /// uncropped, one PNG cut-out.
    public init() {}

    /// The framing `crop` and `maxSize` ask for.
    public var outputLayout: OutputLayout {
        OutputLayout(margin: crop?.margin ?? .pixels(0), square: crop?.square ?? false, maxLongSide: maxSize)
    }

    /// `lifter` with this request's analysis options: threshold, refinement, decontamination and
    /// where the subjects come from.
    public func configure(_ lifter: SubjectLifter) -> SubjectLifter {
        var lifter = lifter
        if let threshold { lifter.analysisOptions.threshold = threshold }
        if let refine { lifter.analysisOptions.refine = refine }
        lifter.analysisOptions.decontaminate = decontaminate
        lifter.analysisOptions.instances = instancesBy
        return lifter
    }
}

/// Which images a cut-out produces and how they are encoded.
public struct CutoutOutputs: Sendable, Equatable {
    /// What the main image is.
    public enum Image: String, Sendable, Equatable {
        /// The kept subjects composited on the background, framed.
        case cutout
        /// The kept subjects' grey mask (0 background … 255 subject), the photo's size.
        case mask
    }

    /// The main image; `nil` for an analysis only (the subjects, no image).
    public var image: Image? = .cutout
    /// Also the grey mask of the same subjects, the photo's size.
    public var mask = false
    /// Also the instance label map (0 background, 1… the subjects by decreasing area), the photo's size.
    public var labels = false
    /// One main image (and mask) per kept subject instead of one of them all.
    public var eachSubject = false
    /// How PNGs of the main image are compressed.
    public var pngCompression = ImageFiles.defaultPNGCompression
    /// The main image's file format.
    public var format = OutputFormat.png
    /// The separate mask's file format (`mask`).
    public var maskFormat = OutputFormat.png
    /// JPEG quality 1...100 (libjpeg's scale); `nil`: `JPEGEncoder.defaultQuality` (90, the usual
    /// quality of listing photos, where JPEG's error gathers at the subject's hard edge).
    public var jpegQuality: Int?

    /// One PNG cut-out, no mask, no labels.
    public init() {}

    /// Whether any image written is a JPEG (the main image, or the mask when asked for).
    public var writesJPEG: Bool { (image != nil && format == .jpeg) || (mask && maskFormat == .jpeg) }
}

/// Crop to the chosen subjects' extent, as given by `--crop`, `--margin` and `--square`.
public struct CropOption: Sendable, Equatable {
    /// Space kept around the subjects.
    public var margin: Margin = .pixels(0)
    /// Extend the crop to a square centred on the subjects.
    public var square = false

    /// A crop with the given margin and shape.
    public init(margin: Margin = .pixels(0), square: Bool = false) {
        self.margin = margin
        self.square = square
    }
}

/// Which subjects to keep, as given by `--instances`.
public enum InstanceSelection: Sendable, Equatable {
    /// Every subject found.
    case all
    /// Only the subject with the largest area.
    case largest
    /// The subjects with these 1-based numbers (subjects are numbered by decreasing area).
    case numbers([Int])
}
