import LiftMask
import LiftTensor

/// What Lift found in one photo: the refined soft mask, the subjects in it, and the images made from them.
///
/// Built from the photo and the model's probability map (at model resolution). The map is upsampled
/// to the photo (bilinear, pixel centres aligned as the model's resize was), thresholded, feathered
/// with a guided filter that uses the photo as guide (edges snap to the photo's edges, hair and fine
/// detail come back as partial alpha), thresholded again for the hard mask, and split into connected
/// subjects numbered by decreasing area (with `Options.instances == .model`, those components
/// regrouped by the model's instance cues: touching subjects apart over the same mask). Shaped like
/// VisionKit's `ImageAnalysis`: `subjects`, `subject(at:)`,
/// `image(for:croppedToExtent:background:)`.
public struct Analysis: Sendable {
    /// How the probability map becomes subjects.
    public struct Options: Sendable, Hashable {
        /// Probability at or above which a pixel is foreground, 0…1 (applied to the upsampled map
        /// before refinement and to the refined alpha for the hard mask).
        public var threshold: Float
        /// Refine edges with the guided filter (photo as guide); off: plain bilinear upsampling.
        public var refine: Bool
        /// Guided-filter radius in photo pixels; `nil`: half the upsampling factor (photo pixels per
        /// map pixel), 2…64 — the best of 1…8 map-pixel radii on DUTS-TE (`lift-bench mask-quality`).
        public var refineRadius: Int?
        /// Guided-filter regularisation (colour variance units, channels in 0…1): smaller follows
        /// weaker photo edges. Default 1e-4 (the best of 1e-4, 1e-3 and 1e-2 on DUTS-TE with the
        /// person-era model); `SubjectLifter` sets its recipe level's (`Recipe.Level.refineEpsilon`).
        public var refineEpsilon: Float
        /// Components smaller than this are dropped as specks.
        public var minimumArea: MinimumArea
        /// Fill holes enclosed by a subject (off: rings and letters keep their holes).
        public var fillHoles: Bool
        /// Keep only the largest subject.
        public var keepLargestOnly: Bool
        /// Neighbourhood joining pixels into one subject.
        public var connectivity: Connectivity
        /// Estimate the foreground colour of semi-transparent edge pixels so no background colour
        /// bleeds into cut-outs and composites.
        public var decontaminate: Bool
        /// Worker threads; `nil`: all active processors.
        public var threads: Int?
        /// Where the subjects come from: the mask's connected components (default) or the model's
        /// instance cues (`SubjectLifter` runs the model's instance heads; `Analysis` needs the cues).
        public var instances: InstanceSource
        /// The thresholds that turn instance cues into subjects (with `instances == .model`); nil:
        /// those tuned for the model's instance heads, which `SubjectLifter` fills in from their
        /// recipe (`SubjectLifter.instanceGrouping(width:height:)`), else `InstanceGrouping.Parameters()`.
        public var grouping: InstanceGrouping.Parameters?

        /// Options; the defaults suit photos: threshold 0.5, refinement on, specks under 0.05 % of
        /// the photo dropped, holes kept, 8-connectivity, decontamination on, subjects as connected
        /// components.
        public init(threshold: Float = 0.5, refine: Bool = true, refineRadius: Int? = nil,
                    refineEpsilon: Float = 1e-4, minimumArea: MinimumArea = .fraction(0.0005),
                    fillHoles: Bool = false, keepLargestOnly: Bool = false,
                    connectivity: Connectivity = .eight, decontaminate: Bool = true, threads: Int? = nil,
                    instances: InstanceSource = .components, grouping: InstanceGrouping.Parameters? = nil) {
            self.instances = instances
            self.grouping = grouping
            self.threshold = threshold
            self.refine = refine
            self.refineRadius = refineRadius
            self.refineEpsilon = refineEpsilon
            self.minimumArea = minimumArea
            self.fillHoles = fillHoles
            self.keepLargestOnly = keepLargestOnly
            self.connectivity = connectivity
            self.decontaminate = decontaminate
            self.threads = threads
        }
    }

    /// The photo analysed (straight-alpha RGBA).
    public let photo: RGBAImage
    /// The options used.
    public let options: Options
    /// Soft alpha of all subjects at photo size, 0…1: specks under the minimum area are removed unless
    /// within the refinement reach of a subject (then they belong to it, as hair strands cut off by the
    /// threshold should), subjects `keepLargestOnly` leaves out are removed with their soft fringe,
    /// filled holes are opaque; with refinement, levels are stretched by `(a - 0.15) / 0.7` and
    /// clamped, so values within 15 % of 0 or 1 become 0 or 1.
    public var alpha: FloatMap { ownedAlpha.rows().materialized(threads: threads) }
    /// Instance labels at photo size: 0 background, `subject.label` (= index + 1) for each subject
    /// (made on each access from `runLabels`, 4 bytes per photo pixel).
    public var labels: LabelMap { runLabels.labelMap(threads: threads) }
    /// The labels as the hard mask's runs.
    let runLabels: RunLabels
    /// The subjects, largest first.
    public let subjects: [Subject]
    /// The alpha, one byte per pixel with its exact values at hand; it knows which subject each
    /// pixel's soft alpha belongs to (its label, or for the soft fringe outside the hard mask the
    /// nearest subject within the refinement reach, also those `keepLargestOnly` left out).
    let ownedAlpha: OwnedAlpha

    /// Analyses a photo given the model's probability map for it.
    /// - Parameters:
    ///   - photo: the photo, any size, straight alpha.
    ///   - probability: foreground probability (0…1) at the model's resolution; values outside 0…1 are
    ///     clamped and NaN counts as 0.
    ///   - placement: where the photo sits in the map (`.stretched` for Lift's models).
    ///   - options: threshold, refinement, speck, hole and connectivity settings.
    /// - Throws: `MaskError` when the photo or the map is empty or a parameter is out of range, or
    ///   when `options.instances` is `.model` (that needs the cues: the initializer below).
    public init(photo: RGBAImage, probability: FloatMap, placement: MapPlacement = .stretched,
                options: Options = Options()) throws {
        try self.init(photo: photo, probability: probability, instanceCues: nil, placement: placement, options: options)
    }

    /// Analyses a photo given the model's probability map and instance cues for it: with
    /// `options.instances == .model` the subjects are the mask's components regrouped by `instanceCues`
    /// (`InstanceGrouping`; the same mask, touching subjects apart); with `.components` the cues are
    /// not used.
    /// - Parameters:
    ///   - instanceCues: the model's instance cues over the same model frame as `probability`
    ///     (the photo stretched to it), or nil.
    ///   - photo, probability, placement, options: as `init(photo:probability:placement:options:)`.
    /// - Throws: `MaskError` as that initializer, and `.invalidParameter` when `options.instances` is
    ///   `.model` without cues, the cues' frame differs from the map's, or the grouping parameters are
    ///   out of range.
    public init(photo: RGBAImage, probability: FloatMap, instanceCues: InstanceCues?, placement: MapPlacement = .stretched,
                options: Options = Options()) throws {
        var cues: (cues: InstanceCues, grouping: InstanceGrouping.Parameters)?
        if options.instances == .model {
            guard let instanceCues else {
                throw MaskError.invalidParameter(name: "instanceCues", value: "none",
                                                 expected: "the model's instance cues when subjects come from the model (Options.instances = .model)")
            }
            guard instanceCues.modelWidth == probability.width, instanceCues.modelHeight == probability.height else {
                throw MaskError.invalidParameter(name: "instanceCues frame", value: "\(instanceCues.modelWidth)×\(instanceCues.modelHeight)",
                                                 expected: "the probability map's \(probability.width)×\(probability.height)")
            }
            guard placement == .stretched else {
                throw MaskError.invalidParameter(name: "placement", value: "letterboxed",
                                                 expected: "stretched when subjects come from the model's instance cues")
            }
            let grouping = options.grouping ?? InstanceGrouping.Parameters()
            try grouping.validate()
            cues = (instanceCues, grouping)
        }
        guard photo.width > 0, photo.height > 0 else {
            throw MaskError.emptyInput(what: "photo", width: photo.width, height: photo.height)
        }
        guard probability.width > 0, probability.height > 0 else {
            throw MaskError.emptyInput(what: "probability map", width: probability.width, height: probability.height)
        }
        guard options.threshold >= 0, options.threshold <= 1 else {
            throw MaskError.invalidParameter(name: "threshold", value: "\(options.threshold)", expected: "0…1")
        }
        guard options.refineEpsilon > 0, options.refineEpsilon.isFinite else {
            throw MaskError.invalidParameter(name: "refineEpsilon", value: "\(options.refineEpsilon)", expected: "> 0")
        }
        if let radius = options.refineRadius, radius < 1 || radius > 1024 {
            throw MaskError.invalidParameter(name: "refineRadius", value: "\(radius)", expected: "1…1024")
        }
        let threads = max(1, options.threads ?? Parallel.defaultThreads)
        // A broken model can emit NaN or values outside 0…1: clamp, NaN to 0 (the map is model-sized, cheap).
        var probability = probability
        for i in probability.values.indices {
            let value = probability.values[i]
            probability.values[i] = value > 0 ? min(value, 1) : 0
        }
        // Nothing photo-sized is stored but the alpha's byte per pixel: the upsampled map and the
        // refined soft map are computed row by row each time a stage reads them.
        let upsampled = try MaskResize.bilinearRows(probability, width: photo.width, height: photo.height, placement: placement)
        let factor = placement.upsamplingFactor(mapWidth: probability.width, mapHeight: probability.height,
                                                photoWidth: photo.width, photoHeight: photo.height)
        let radius = options.refineRadius ?? min(64, max(2, Int((factor / 2).rounded())))
        let soft: any MapRowSampler
        if options.refine {
            // The filter feathers the thresholded mask (He et al.'s feathering): fed the soft map, it
            // would keep the map's blur as semi-transparency just inside every edge.
            let filter = GuidedFilter(radius: radius, epsilon: options.refineEpsilon,
                                      subsampling: GuidedFilter.defaultSubsampling(width: photo.width, height: photo.height))
            soft = filter.output(guide: photo, input: MapRows(upsampled), inputThreshold: options.threshold, threads: threads)
        } else {
            soft = upsampled
        }
        // Every instance is labelled, also those `keepLargestOnly` leaves out: they own their soft
        // fringe, so it goes with them instead of to a kept neighbour.
        var segmentation = InstanceSegmentation(
            thresholding: MapRows(soft), at: options.threshold, scoreRows: MapRows(upsampled),
            options: InstanceOptions(connectivity: options.connectivity, minimumArea: options.minimumArea,
                                     fillHoles: options.fillHoles),
            threads: threads)
        if let cues {
            segmentation = try segmentation.grouped(by: cues.cues, parameters: cues.grouping, scoreRows: MapRows(upsampled),
                                                    threads: threads)
        }
        let reach = max(radius, Int(factor.rounded(.up))) + 2
        let ownership = OwnershipMap(labels: segmentation.runLabels, reach: reach, threads: threads)
        self.photo = photo
        self.options = options
        var instances = segmentation.instances
        let keepLargest = options.keepLargestOnly && instances.count > 1
        // The feathered alpha falls a few percent short of 0 and 1 where a window held a pixel of
        // misplaced mask edge; snapping the outer 3 % keeps interiors opaque and backgrounds clear.
        ownedAlpha = OwnedAlpha(soft: soft, labels: segmentation.runLabels, ownership: ownership, threshold: options.threshold,
                                snap: options.refine ? Self.refinedAlphaSnap : 0,
                                keeping: keepLargest ? [false, true] + [Bool](repeating: false, count: instances.count - 1) : nil,
                                threads: threads)
        if keepLargest {
            instances = [instances[0]]
            runLabels = segmentation.runLabels.relabelled([0, 1] + [Int32](repeating: 0, count: segmentation.instances.count - 1),
                                                         count: 1)
        } else {
            runLabels = segmentation.runLabels
        }
        self.subjects = instances.enumerated().map { index, instance in
            Subject(index: index, area: instance.area, boundingBox: instance.boundingBox,
                    centroid: instance.centroid, score: instance.score)
        }
    }

    /// Refined alpha within this of 0 or 1 becomes exactly 0 or 1 (levels stretched in between).
    /// The feathering spreads a solid outline over more pixels than the photo's own: against the truth
    /// of `Benchmarks/edges.py` the outline error falls as this grows (0.03 → 0.15 lowers it by 1.2
    /// levels on both validation sets, 0.3 by another 0.5 on ECSSD). Its composites have binary
    /// outlines and cannot show what harder edges cost hair and fur, so 0.15 stops short of that.
    static let refinedAlphaSnap: Float = 0.15

    /// The subject under `point` (photo pixels), or the nearest one within `searchRadius` pixels
    /// (default: 1 % of the photo's longer side, at least 2; `Int.max`: the nearest in the photo); `nil`
    /// on background.
    public func subject(at point: PixelPoint, searchRadius: Int? = nil) -> Subject? {
        let radius = searchRadius ?? max(2, max(photo.width, photo.height) / 100)
        guard let label = InstanceQuery.label(at: point, in: runLabels, searchRadius: radius) else { return nil }
        return subjects[Int(label) - 1]
    }

    /// Soft alpha (0…1, photo size) of the union of `subjects`: the analysis's alpha where the pixel
    /// belongs to one of them, else 0.
    /// - Throws: `MaskError.unknownSubject` for a subject not from this analysis.
    public func mask(for subjects: [Subject]) throws -> FloatMap {
        try maskRows(for: subjects).materialized(threads: threads)
    }

    /// `mask(for:)` quantised to 8 bits (`FloatMap.grayImage`), one byte per pixel, without the Float map.
    /// - Throws: `MaskError.unknownSubject` for a subject not from this analysis.
    public func maskImage(for subjects: [Subject]) throws -> GrayImage {
        let rows = try maskRows(for: subjects), width = photo.width
        let pixels = rows.withRowReader { read in
            [UInt8](unsafeUninitializedCapacity: photo.pixelCount) { out, initialized in
                nonisolated(unsafe) let out = out
                Parallel.forEach(count: photo.height, threads: threads, minimumPerPart: 16) { range in
                    let scratch = rows.allocateScratch()
                    defer { scratch.deallocate() }
                    for y in range {
                        let row = read(y, scratch), o = out.nonEmptyBase + y &* width
                        for x in 0 ..< width { o[x] = FloatMap.quantised(row[x]) }
                    }
                }
                initialized = photo.pixelCount
            }
        }
        return GrayImage(width: photo.width, height: photo.height, pixels: pixels)
    }

    /// The rows of `mask(for:)`, computed on demand.
    func maskRows(for subjects: [Subject]) throws -> MapRows {
        try checkOwn(subjects)
        // All subjects: the alpha already is their union (no pixel is owned by a subject left out).
        let keeping = Set(subjects.map(\.label))
        return keeping.count == self.subjects.count ? ownedAlpha.rows() : ownedAlpha.rows(keeping: ownedAlpha.keepingTable(keeping))
    }

    /// Worker threads for the stages run on demand.
    private var threads: Int { max(1, options.threads ?? Parallel.defaultThreads) }

    /// The smallest box holding the hard masks of `subjects` (`nil` when none is given). The soft
    /// fringe can reach a few pixels past it; `image(for:croppedToExtent:)` crops to the visible alpha.
    public func extent(of subjects: [Subject]) -> PixelBox? {
        let box = subjects.reduce(PixelBox(x: 0, y: 0, width: 0, height: 0)) { $0.union($1.boundingBox) }
        return box.isEmpty ? nil : box
    }

    /// An image of `subjects` lifted from the photo.
    /// - Parameters:
    ///   - subjects: which subjects to keep (usually from `subjects` or `subject(at:)`).
    ///   - croppedToExtent: crop to the subjects' extent (their hard masks and every pixel of soft
    ///     fringe the 8-bit output would show) plus `layout.margin`; off: the photo's frame.
    ///   - background: transparent (straight-alpha cut-out), a colour, the blurred or the dimmed photo.
    ///   - layout: margin, square canvas and longest-side cap.
    /// - Throws: `MaskError.unknownSubject` for a subject not from this analysis,
    ///   `.emptySelection` when cropping to no subject, `.tooLarge` for a canvas over
    ///   `OutputLayout.maxCanvasPixels` (or the pixel limit).
    public func image(for subjects: [Subject], croppedToExtent: Bool = false,
                      background: Background = .transparent, layout: OutputLayout = OutputLayout()) throws -> RGBAImage {
        try imageRows(for: subjects, croppedToExtent: croppedToExtent, background: background, layout: layout).image(threads: threads)
    }

    /// `image(for:croppedToExtent:background:layout:)` as rows made on demand, for an encoder that
    /// takes them one at a time (`ImageFiles.encodePNG(_ rows:)`), so the image is never held whole;
    /// the same pixels. A longest-side cap shrinks the composite's rows as they are made.
    /// - Throws: as `image(for:…)`.
    public func imageRows(for subjects: [Subject], croppedToExtent: Bool = false, background: Background = .transparent,
                          layout: OutputLayout = OutputLayout()) throws -> any RGBARows {
        let alpha = try maskRows(for: subjects)
        var frame = PixelBox(x: 0, y: 0, width: photo.width, height: photo.height)
        if croppedToExtent {
            // The hard masks' box would cut through the soft fringe: crop to every visible pixel.
            guard let extent = extent(of: subjects) else { throw MaskError.emptySelection(subjectCount: subjects.count) }
            frame = Framing.crop(extent: Framing.visibleExtent(of: alpha, threads: threads).map { $0.union(extent) } ?? extent,
                                 margin: layout.margin)
        }
        if layout.square { frame = Framing.square(frame) }
        let canvasLimit = OutputLayout.maxCanvasPixels(photoWidth: photo.width, photoHeight: photo.height)
        guard frame.width * frame.height <= canvasLimit else {  // each side is under 2^26: no overflow
            throw MaskError.tooLarge(what: "output canvas (crop margin and square side at most 4 times the photo's pixels)",
                                     width: frame.width, height: frame.height, limit: canvasLimit)
        }
        let rows = try CompositeRows(photo: photo, alpha: alpha, background: background, frame: frame,
                                     decontaminate: options.decontaminate, threads: threads)
        guard let cap = layout.maxLongSide else { return rows }
        guard cap >= 1 else { throw MaskError.invalidParameter(name: "maxLongSide", value: "\(cap)", expected: "≥ 1") }
        guard let size = AreaDownscale.fittedSize(width: frame.width, height: frame.height, maxLongSide: cap) else { return rows }
        return AreaDownscale.Rows(of: rows, width: size.width, height: size.height)
    }

    /// Throws `MaskError.unknownSubject` unless every subject is one of `self.subjects`.
    private func checkOwn(_ subjects: [Subject]) throws {
        for subject in subjects where subject.index < 0 || subject.index >= self.subjects.count
            || self.subjects[subject.index] != subject {
            throw MaskError.unknownSubject(index: subject.index, subjectCount: self.subjects.count)
        }
    }
}
