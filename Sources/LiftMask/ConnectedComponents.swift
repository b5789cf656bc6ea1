import LiftImage
import LiftTensor

/// Connected-component labelling of a hard mask.
public enum ConnectedComponents {
    /// Labels the foreground (non-zero) pixels of `mask`.
    ///
    /// Labels are numbered from 1 in raster order of each component's first pixel (as OpenCV's
    /// `connectedComponentsWithStats` does); 0 is background. The algorithm is linear in the pixels:
    /// see `RunComponents`.
    /// - Parameters:
    ///   - mask: row-major bytes, foreground where non-zero.
    ///   - connectivity: 4 or 8.
    ///   - score: optional map (mask size) whose mean over each component becomes its `score`.
    ///   - threads: worker threads (results do not depend on it).
    /// - Returns: the label map and one `Instance` per label (`components[k].label == k + 1`).
    public static func label(_ mask: GrayImage, connectivity: Connectivity = .eight, score: FloatMap? = nil,
                             threads: Int = Parallel.defaultThreads) -> (labels: LabelMap, components: [Instance]) {
        let runs = RunComponents(mask: mask, connectivity: connectivity, threads: threads)
        let components = runs.statistics(score: score.map(MapRows.init), threads: threads)
        let labelOf = (0 ..< runs.componentCount).map { Int32($0 + 1) }
        let labels = LabelMap(width: mask.width, height: mask.height,
                              labels: runs.labelImage(labelOf: labelOf, threads: threads), count: runs.componentCount)
        return (labels, components)
    }
}

/// The instances of a hard mask: components with specks dropped, holes optionally filled, numbered
/// by decreasing area (ties: raster order of the first pixel).
public struct InstanceSegmentation: Sendable {
    /// Labels at mask size: 0 background (and dropped specks), `k` for `instances[k - 1]` (made from
    /// `runLabels` on each access).
    public var labels: LabelMap { runLabels.labelMap() }
    /// The labels as runs.
    package let runLabels: RunLabels
    /// The instances, largest first; `instances[i].label == i + 1`.
    public let instances: [Instance]

    /// Segments `mask` into instances.
    /// - Parameters:
    ///   - mask: hard mask, foreground where non-zero.
    ///   - score: optional map (mask size) averaged into each instance's `score`.
    ///   - options: connectivity, minimum area, hole filling, keep-largest.
    ///   - threads: worker threads (results do not depend on it).
    public init(mask: GrayImage, score: FloatMap? = nil, options: InstanceOptions = InstanceOptions(),
                threads: Int = Parallel.defaultThreads) {
        self.init(mask: mask, scoreRows: score.map(MapRows.init), options: options, threads: threads)
    }

    /// `init(mask:score:options:threads:)` with the score map read row by row (rows of the mask
    /// holding no foreground are never read).
    package init(mask: GrayImage, scoreRows score: MapRows?, options: InstanceOptions = InstanceOptions(),
                 threads: Int = Parallel.defaultThreads) {
        let filled = options.fillHoles ? HoleFilling.filled(mask, connectivity: options.connectivity, threads: threads) : mask
        self.init(runs: RunComponents(mask: filled, connectivity: options.connectivity, threads: threads), score: score,
                  options: options, threads: threads)
    }

    /// The instances of `map >= threshold` (the hard mask of a soft map read row by row), without
    /// making the mask image unless holes are to be filled.
    package init(thresholding map: MapRows, at threshold: Float, scoreRows score: MapRows?,
                 options: InstanceOptions = InstanceOptions(), threads: Int = Parallel.defaultThreads) {
        if options.fillHoles {
            self.init(mask: Threshold.mask(map.materialized(threads: threads), threshold: threshold, threads: threads),
                      scoreRows: score, options: options, threads: threads)
            return
        }
        let width = map.width, rowBytes = (map.width + 15) / 16 * 16
        let runs = map.withRowReader { read in
            RunComponents(width: map.width, height: map.height, connectivity: options.connectivity, threads: threads,
                          scratchBytes: rowBytes + map.scratchBytes) { y, scratch in
                let row = read(y, scratch + rowBytes), bytes = scratch.assumingMemoryBound(to: UInt8.self)
                for x in 0 ..< width { bytes[x] = row[x] >= threshold ? 255 : 0 }
                return UnsafePointer(bytes)
            }
        }
        self.init(runs: runs, score: score, options: options, threads: threads)
    }

    /// These instances regrouped by a network's instance cues (`InstanceGrouping`, then
    /// `AffinitySplit` when the parameters and cues have it): components cut where the cues see
    /// touching subjects, parts of one occluded subject joined; the same pixels are foreground. Statistics are recomputed, `score` averaged as `init` does.
    /// - Throws: `MaskError.invalidParameter` for parameters out of range, or for more components
    ///   × peaks than `InstanceGrouping.maximumPieces` (checked before anything is allocated).
    package func grouped(by cues: InstanceCues, parameters: InstanceGrouping.Parameters, scoreRows score: MapRows?,
                         threads: Int = Parallel.defaultThreads) throws -> InstanceSegmentation {
        try parameters.validate()
        let (pieces, overflow) = instances.count.multipliedReportingOverflow(by: parameters.maximumPeaks)
        guard !overflow, pieces <= InstanceGrouping.maximumPieces else {
            throw MaskError.invalidParameter(name: "instances × maximumPeaks", value: "\(instances.count) × \(parameters.maximumPeaks)",
                                             expected: "at most \(InstanceGrouping.maximumPieces) (fewer specks: a larger minimumArea)")
        }
        let regrouped = InstanceGrouping.group(runLabels, cues: cues, parameters: parameters, threads: threads)
        let split = parameters.affinitySplit.flatMap { AffinitySplit.split(regrouped ?? runLabels, cues: cues, parameters: $0) }
        guard let labels = split ?? regrouped else { return self }
        return InstanceSegmentation(runLabels: labels, instances: labels.statistics(score: score, threads: threads))
    }

    private init(runLabels: RunLabels, instances: [Instance]) {
        self.runLabels = runLabels
        self.instances = instances
    }

    /// Ranks the components of `runs` into instances.
    private init(runs: RunComponents, score: MapRows?, options: InstanceOptions, threads: Int) {
        let components = runs.statistics(score: score, threads: threads)
        let minimum = max(1, options.minimumArea.pixels(forImagePixels: runs.width * runs.height))
        var kept = components.indices.filter { components[$0].area >= minimum }
        kept.sort { components[$0].area != components[$1].area ? components[$0].area > components[$1].area : $0 < $1 }
        if options.keepLargestOnly { kept = Array(kept.prefix(1)) }
        var labelOf = [Int32](repeating: 0, count: runs.componentCount)
        var instances: [Instance] = []
        instances.reserveCapacity(kept.count)
        for (rank, c) in kept.enumerated() {
            labelOf[c] = Int32(rank + 1)
            var instance = components[c]
            instance.label = Int32(rank + 1)
            instances.append(instance)
        }
        self.instances = instances
        runLabels = RunLabels(runs: runs, labelOf: labelOf, count: instances.count)
    }
}

/// Filling of enclosed background.
public enum HoleFilling {
    /// `mask` with every hole set to 255: a hole is a component of background pixels (in the dual
    /// connectivity of `connectivity`, so a closed ring always encloses its hole) that touches no
    /// image border.
    public static func filled(_ mask: GrayImage, connectivity: Connectivity, threads: Int = Parallel.defaultThreads) -> GrayImage {
        let runs = RunComponents(mask: mask, background: true, connectivity: connectivity.dual, threads: threads)
        let regions = runs.statistics(score: nil, threads: threads)
        let holes = regions.map { region in
            let box = region.boundingBox
            return box.x > 0 && box.y > 0 && box.maxX < mask.width && box.maxY < mask.height
        }
        var pixels = mask.pixels
        runs.paint(&pixels, selected: holes, value: 255)
        return GrayImage(width: mask.width, height: mask.height, pixels: pixels)
    }
}
