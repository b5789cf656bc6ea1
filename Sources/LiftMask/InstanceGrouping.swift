import Foundation
import LiftImage
import LiftTensor

/// Instances from a network's instance cues: Panoptic-DeepLab's grouping, held back by
/// the connected components and a predicted touching boundary. The Swift form of `group` in
/// `Tools/instances/group.py` (steps 2–5 of its docstring; step 1, the mask and its components, is
/// the `RunLabels` it starts from), giving the same instances on the same inputs:
///
/// 2. Centre peaks (`CentrePeaks`): one peak or none → the components as they are.
/// 3. Every foreground pixel votes for its nearest peak (`InstancePieces`). With a `minimumSupport`,
///    a peak whose votes landing within `joinDistance` of it cover less than that share of the photo
///    is dropped and the pixels vote again among the rest (one peak left or none → the components).
///    A piece is what one component gives one peak, connected or not. Pieces under `minimumPiece`
///    of the photo go to the larger piece of their component they border most (4-neighbour pixel
///    pairs; ties: the higher piece number), or to the component's largest piece.
/// 4. Two bordering pieces stay apart only where the mean boundary probability over their border's
///    pixel pairs is at least `boundaryThreshold`, and only where the `splitCheck` says they are two
///    objects (no boundary map, or neither check: offsets alone split).
/// 5. Instances whose pixels mostly vote for one peak, with a median miss under `joinDistance`
///    model pixels, join, across components: the visible parts of an occluded object become one.
///
/// The instances' union is exactly the components' union (every labelled pixel stays labelled, no
/// other pixel is), so the foreground mask is the same as with components alone.
public enum InstanceGrouping {
    /// The most pieces (components × peaks) a grouping may count: its per-piece tallies are ~40 bytes
    /// each per thread. The default speck rule allows at most 2,000 components (0.05 % each), × 8 peaks.
    public static let maximumPieces = 1 << 22

    /// The grouping's thresholds (`Tools/instances/group.py`'s `GroupParams`; tune them there, on the
    /// tuning set only). Those tuned for a model's instance heads travel in the heads' weight file
    /// (`lift.recipe`, `Recipe.grouping` in `Lift`), so heads trained again bring their own.
    public struct Parameters: Sendable, Hashable {
        /// Centre probability a peak needs, 0…1.
        public var centreThreshold: Float
        /// Side of the peak window in cells (a peak is the largest of its window), ≥ 1.
        public var peakWindow: Int
        /// Most peaks kept (the best), 1…64.
        public var maximumPeaks: Int
        /// Pieces smaller than this share of the photo are merged into a neighbour, 0…1.
        public var minimumPiece: Double
        /// Mean boundary probability that keeps two bordering pieces apart, 0…1; nil: offsets alone split.
        public var boundaryThreshold: Double?
        /// Median distance (model pixels) within which an instance's votes land on its peak for step 5;
        /// also the distance within which a vote supports its peak in step 3.
        public var joinDistance: Double
        /// Share of the photo, 0…1, whose votes must land within `joinDistance` of a peak for it to
        /// stay a centre; 0: no support test.
        public var minimumSupport: Double
        /// Step 4's split check between bordering pieces; nil: none.
        public var splitCheck: SplitCheck?
        /// The split along the affinity maps after the grouping (`AffinitySplit`; only for cues
        /// with affinity maps); nil: none.
        public var affinitySplit: AffinitySplit.Parameters?

        /// The defaults of `group.py`: 0.1, a 3-cell window, 8 peaks, 0.5 %, 0.3, 12 model pixels, no
        /// support test, no split check, no affinity split.
        public init(centreThreshold: Float = 0.1, peakWindow: Int = 3, maximumPeaks: Int = 8, minimumPiece: Double = 0.005,
                    boundaryThreshold: Double? = 0.3, joinDistance: Double = 12, minimumSupport: Double = 0,
                    splitCheck: SplitCheck? = nil, affinitySplit: AffinitySplit.Parameters? = nil) {
            self.centreThreshold = centreThreshold
            self.peakWindow = peakWindow
            self.maximumPeaks = maximumPeaks
            self.minimumPiece = minimumPiece
            self.boundaryThreshold = boundaryThreshold
            self.joinDistance = joinDistance
            self.minimumSupport = minimumSupport
            self.splitCheck = splitCheck
            self.affinitySplit = affinitySplit
        }

        /// Throws `MaskError.invalidParameter` for a value out of its range.
        public func validate() throws {
            func check(_ ok: Bool, _ name: String, _ value: String, _ expected: String) throws {
                if !ok { throw MaskError.invalidParameter(name: name, value: value, expected: expected) }
            }
            try check(centreThreshold >= 0 && centreThreshold <= 1, "centreThreshold", "\(centreThreshold)", "0…1")
            try check(peakWindow >= 1 && peakWindow <= 63, "peakWindow", "\(peakWindow)", "1…63")
            try check(maximumPeaks >= 1 && maximumPeaks <= 64, "maximumPeaks", "\(maximumPeaks)", "1…64")
            try check(minimumPiece >= 0 && minimumPiece <= 1, "minimumPiece", "\(minimumPiece)", "0…1")
            try check(boundaryThreshold.map { $0 >= 0 && $0 <= 1 } ?? true, "boundaryThreshold", "\(boundaryThreshold ?? 0)", "0…1")
            try check(joinDistance >= 0 && joinDistance.isFinite, "joinDistance", "\(joinDistance)", "≥ 0")
            try check(minimumSupport >= 0 && minimumSupport <= 1, "minimumSupport", "\(minimumSupport)", "0…1")
            if let split = splitCheck {
                try check(split.probability > 0 && split.probability < 1, "splitCheck.probability", "\(split.probability)",
                          "strictly between 0 and 1")
                for (name, weight) in [("bias", split.bias), ("peak", split.peak), ("seam", split.seam), ("spread", split.spread),
                                       ("support", split.support)] {
                    try check(weight.isFinite, "splitCheck.\(name)", "\(weight)", "a finite weight")
                }
            }
            try affinitySplit?.validate()
        }
    }

    /// Step 4's split check (`group.py`'s `split_check` and `split_probability`): a logistic
    /// regression, fitted by `Tools/instances/fit_split_check.py` on candidate splits of synthetic
    /// composites and untouched photos, that keeps two bordering pieces of one component apart only
    /// when its probability that they are two objects is at least `probability`. Its log-odds are
    /// `bias + peak · logit(s) + seam · ln(b) + spread · ln(d) + support · ln(u)`, where `s` is the
    /// weaker of the two pieces' peak scores (clipped to 0.001…0.999), `b` the mean boundary
    /// probability on their border (as the boundary check measures it; at least 0.001), `d` the
    /// distance between their peaks over the square root of their component's area, both in model
    /// pixels (at least 0.001), and `u` the smaller of the two peaks' supports: the share of the
    /// photo whose votes land within `joinDistance` of the peak (at least 0.0001; the support test's
    /// measure, weighed here instead of thresholded; a `support` weight of 0 leaves it out).
    /// A real seam, a confident weaker peak and centres far apart for the object's size mark two
    /// objects; a spurious second peak on one object shows none of them. Needs the boundary map.
    public struct SplitCheck: Sendable, Hashable {
        public var bias: Double, peak: Double, seam: Double, spread: Double, support: Double
        /// The probability, strictly between 0 and 1, that keeps two pieces apart.
        public var probability: Double

        public init(bias: Double, peak: Double, seam: Double, spread: Double, support: Double = 0, probability: Double) {
            self.bias = bias
            self.peak = peak
            self.seam = seam
            self.spread = spread
            self.support = support
            self.probability = probability
        }

        /// Whether the check keeps two pieces apart: `weakerPeak` their weaker peak's score, `seam`
        /// the mean boundary probability on their border, `spread` their peaks' distance over the
        /// square root of their component's area (model pixels), `lesserSupport` the smaller of their
        /// peaks' supports (share of the photo).
        func keepsApart(weakerPeak: Double, seam b: Double, spread d: Double, lesserSupport u: Double) -> Bool {
            let s = min(max(weakerPeak, 0.001), 0.999)
            var logOdds = bias + peak * log(s / (1 - s)) + seam * log(max(b, 0.001)) + spread * log(max(d, 0.001))
            if support != 0 { logOdds += support * log(max(u, 0.0001)) }
            return logOdds >= log(probability / (1 - probability))
        }
    }

    /// The instances of `labels` regrouped by `cues`, numbered 1… by decreasing area (ties: the first
    /// pixel in raster order), as runs; nil when the cues show one centre or none (the components
    /// stand as they are). `labels` must be components (one label per connected component, as
    /// `InstanceSegmentation` gives); its label 0 (specks) stays background.
    /// - Precondition: `parameters` are valid (`validate()`).
    package static func group(_ labels: RunLabels, cues: InstanceCues, parameters p: Parameters,
                              threads: Int = Parallel.defaultThreads) -> RunLabels? {
        var peaks = CentrePeaks.find(cues.centre, threshold: p.centreThreshold, window: p.peakWindow, limit: p.maximumPeaks)
        guard peaks.count > 1, labels.count > 0 else { return nil }
        // Components are numbered in raster order of their first pixel, as group.py's are.
        var componentOfLabel = [Int32](repeating: -1, count: labels.count + 1)
        var components: Int32 = 0
        for label in labels.runLabel where label != 0 && componentOfLabel[Int(label)] < 0 {
            componentOfLabel[Int(label)] = components
            components += 1
        }
        var pieces = InstancePieces(labels: labels, componentOfLabel: componentOfLabel, components: Int(components),
                                    peaks: peaks, cues: cues, joinDistance: p.joinDistance, threads: threads)
        if p.minimumSupport > 0 {
            // Step 3's support test: a peak is a centre only where the votes land on it.
            let support = pieces.peakSupport(peaks: peaks.count)
            let needed = p.minimumSupport * Double(labels.height) * Double(labels.width)
            let kept = peaks.indices.filter { Double(support[$0]) >= needed }
            guard kept.count > 1 else { return nil }
            if kept.count < peaks.count {
                peaks = kept.map { peaks[$0] }
                pieces = InstancePieces(labels: labels, componentOfLabel: componentOfLabel, components: Int(components),
                                        peaks: peaks, cues: cues, joinDistance: p.joinDistance, threads: threads)
            }
        }
        let n = pieces.pieceCount, k = peaks.count
        // Step 3: slivers to a larger neighbour of their component.
        let minimum = p.minimumPiece * Double(labels.height) * Double(labels.width)
        var lut = (0 ... n).map { Int32($0) }
        let small = (1 ... n).filter { pieces.area[$0] > 0 && Double(pieces.area[$0]) < minimum }
            .sorted { pieces.area[$0] != pieces.area[$1] ? pieces.area[$0] < pieces.area[$1] : $0 < $1 }
        if !small.isEmpty {
            var contact: [Int: Int] = [:]
            pieces.forEachBorder { a, b, _, x0, x1, vertical in
                contact[key(a, b, n), default: 0] += vertical ? x1 - x0 : 1
            }
            var neighbours = [[(count: Int, piece: Int)]](repeating: [], count: n + 1)
            for (code, count) in contact {
                let (a, b) = code.quotientAndRemainder(dividingBy: n + 1)
                neighbours[a].append((count, b))
                neighbours[b].append((count, a))
            }
            for i in small {
                let c = (i - 1) / k
                let larger = neighbours[i].filter { ($0.piece - 1) / k == c && Double(pieces.area[$0.piece]) >= minimum }
                if let best = larger.max(by: { ($0.count, $0.piece) < ($1.count, $1.piece) }) {
                    lut[i] = Int32(best.piece)
                } else {
                    let members = c * k + 1 ... c * k + k
                    var largest = members.lowerBound
                    for m in members where pieces.area[m] > pieces.area[largest] { largest = m }
                    lut[i] = Int32(largest)
                }
            }
            for r in pieces.piece.indices { pieces.piece[r] = lut[Int(pieces.piece[r])] }
        }
        // Step 4: pieces stay apart only across a predicted boundary, and where the split check says so.
        var union = UnionFind(count: n + 1)
        if let boundary = cues.boundary, p.boundaryThreshold != nil || p.splitCheck != nil {
            let sampler = CellSampler(cellWidth: cues.cellWidth, cellHeight: cues.cellHeight, width: labels.width, height: labels.height)
            var seams: [Int: (sum: Double, count: Int)] = [:]
            boundary.values.withUnsafeBufferPointer { values in
                let map = values.nonEmptyBase
                pieces.forEachBorder { a, b, y, x0, x1, vertical in
                    var sum = 0.0, count = 0
                    if vertical {
                        for x in x0 ..< x1 {
                            sum += Double((sampler.value(map, x: x, y: y) + sampler.value(map, x: x, y: y + 1)) / 2)
                            count += 1
                        }
                    } else {
                        sum = Double((sampler.value(map, x: x0 - 1, y: y) + sampler.value(map, x: x0, y: y)) / 2)
                        count = 1
                    }
                    seams[key(a, b, n), default: (0, 0)].sum += sum
                    seams[key(a, b, n), default: (0, 0)].count += count
                }
            }
            // The split check's frame: photo pixels in model pixels (the peaks are in model pixels).
            let modelPerPhoto = Double(cues.modelHeight * cues.modelWidth) / (Double(labels.height) * Double(labels.width))
            let support = pieces.peakSupport(peaks: k)  // the votes as they stand after any drop; slivers' merge moves none
            for (code, seam) in seams {
                let (a, b) = code.quotientAndRemainder(dividingBy: n + 1)
                let mean = seam.sum / Double(seam.count)
                if let threshold = p.boundaryThreshold, mean < threshold {
                    union.join(a, b)
                } else if let split = p.splitCheck {
                    let ia = (a - 1) % k, ib = (b - 1) % k, c = (a - 1) / k
                    let component = (c * k + 1 ... c * k + k).reduce(0) { $0 + pieces.area[$1] }  // merges stay inside it
                    let dy = pieces.peakY[ia] - pieces.peakY[ib], dx = pieces.peakX[ia] - pieces.peakX[ib]
                    let spread = (dy * dy + dx * dx).squareRoot() / (Double(component) * modelPerPhoto).squareRoot()
                    let lesserSupport = Double(min(support[ia], support[ib])) / (Double(labels.height) * Double(labels.width))
                    if !split.keepsApart(weakerPeak: Double(min(peaks[ia].score, peaks[ib].score)), seam: mean, spread: spread,
                                         lesserSupport: lesserSupport) { union.join(a, b) }
                }
            }
        }
        // Step 5: instances whose votes land on one peak join. Original piece `q` voted for peak
        // (q − 1) mod k; its pixels now belong to root(lut[q]).
        // Per (root, peak): the pixels that voted for it and their misses against the join distance.
        struct Votes {
            var total = 0, near = 0, nearMax = -Double.infinity, farMin = Double.infinity
        }
        var votes: [Int: Votes] = [:]  // root · k + peak
        for q in 1 ... n where pieces.area[q] > 0 {
            let code = union.find(Int(lut[q])) * k + (q - 1) % k
            var v = votes[code, default: Votes()]
            v.total += pieces.area[q]
            v.near += pieces.near[q]
            v.nearMax = max(v.nearMax, pieces.nearMax[q])
            v.farMin = min(v.farMin, pieces.farMin[q])
            votes[code] = v
        }
        var dominant: [Int: (peak: Int, votes: Votes)] = [:]  // root → the peak most of its pixels voted for (the first on a tie)
        for (code, v) in votes {
            let (root, peak) = code.quotientAndRemainder(dividingBy: k)
            if let best = dominant[root], best.votes.total > v.total || (best.votes.total == v.total && best.peak < peak) { continue }
            dominant[root] = (peak, v)
        }
        var landing = [[Int]](repeating: [], count: k)
        for root in dominant.keys.sorted() {
            guard let (peak, v) = dominant[root] else { continue }
            // The median miss of the root's pixels voting for `peak`, against the join distance.
            let below = v.total % 2 == 1 ? v.near >= v.total / 2 + 1
                : v.near >= v.total / 2 + 1 || (v.near == v.total / 2 && (v.nearMax + v.farMin) / 2 < p.joinDistance)
            if below { landing[peak].append(root) }
        }
        for roots in landing { for root in roots.dropFirst() { union.join(roots[0], root) } }
        return ordered(pieces, root: (0 ... n).map { $0 == 0 ? 0 : union.find($0) })
    }

    /// `a`–`b` as one dictionary key (the smaller first).
    private static func key(_ a: Int32, _ b: Int32, _ n: Int) -> Int {
        Int(min(a, b)) * (n + 1) + Int(max(a, b))
    }

    /// The pieces' runs labelled by their root, labels 1… by decreasing area (ties: first pixel in
    /// raster order), neighbouring runs of one label joined.
    private static func ordered(_ pieces: InstancePieces, root: [Int]) -> RunLabels {
        RunLabels.ranked(width: pieces.width, height: pieces.height, idCount: root.count, runStart: pieces.start,
                         runEnd: pieces.end, rowOffsets: pieces.rowOffsets,
                         runLabel: pieces.piece.map { Int32(root[Int($0)]) })
    }
}

/// Disjoint sets over `0..<count` with path halving; the smaller index becomes the root.
struct UnionFind {
    private var parent: [Int]

    init(count: Int) { parent = Array(0 ..< count) }

    mutating func find(_ i: Int) -> Int {
        var i = i
        while parent[i] != i {
            parent[i] = parent[parent[i]]
            i = parent[i]
        }
        return i
    }

    mutating func join(_ a: Int, _ b: Int) {
        let a = find(a), b = find(b)
        if a != b { parent[max(a, b)] = min(a, b) }
    }
}
