import LiftImage

/// What a network with instance heads says about instances (Panoptic-DeepLab's cues):
/// maps on a grid of cells over the model's input, the photo stretched to it.
///
/// Cell `(i, j)` of a `cellHeight × cellWidth` grid stands for model pixel
/// `(i · sy + (sy − 1) / 2, j · sx + (sx − 1) / 2)` with `sy = modelHeight / cellHeight` (the heads'
/// stride, 4 for Lift's subject model: model pixel `4i + 1.5`). All maps are row-major, one `Float`
/// per cell.
public struct InstanceCues: Sendable, Equatable {
    /// The model's input (and foreground map) size in pixels: the frame the offsets are measured in.
    public let modelWidth: Int, modelHeight: Int
    /// Centre-heatmap probability per cell, 0…1 (a peak marks an instance's centre).
    public let centre: FloatMap
    /// Vertical offset from each cell to its instance's centre, in model pixels (down is positive).
    public let offsetY: FloatMap
    /// Horizontal offset from each cell to its instance's centre, in model pixels (right is positive).
    public let offsetX: FloatMap
    /// Touching-boundary probability per cell, 0…1, or nil when the model has no such head (then
    /// the offsets alone split a component).
    public let boundary: FloatMap?
    /// Same-instance probabilities of cell pairs, 0…1, one map per `affinityOffsets` entry: map `k`
    /// at cell `(i, j)` is the probability that cells `(i, j)` and `(i + dy, j + dx)` of
    /// `affinityOffsets[k]` belong to one instance (cells whose partner is off the grid hold a value
    /// that is never read). Nil when the model has no affinity branch (then `AffinitySplit` does nothing).
    public let affinity: [FloatMap]?

    /// The cell pairs `(dy, dx)` of the affinity maps, in cells, in map order: right and down at 1,
    /// 3 and 8 cells (`Tools/liftpy/subject_model.py`'s `InstanceHeads.AFFINITY_OFFSETS`; the
    /// `affinity` output's channel order in GRAPH-FORMAT.md).
    public static let affinityOffsets: [(dy: Int, dx: Int)] = [(0, 1), (1, 0), (0, 3), (3, 0), (0, 8), (8, 0)]

    /// Cues on one cell grid.
    /// - Throws: `MaskError.emptyInput` for an empty map or model size, `.invalidParameter` when the
    ///   maps differ in size, the affinity maps are not one per `affinityOffsets` entry or the grid
    ///   is finer than the model's pixels, `.invalidParameter` for a value that is not finite (a
    ///   broken model).
    public init(modelWidth: Int, modelHeight: Int, centre: FloatMap, offsetY: FloatMap, offsetX: FloatMap,
                boundary: FloatMap? = nil, affinity: [FloatMap]? = nil) throws {
        guard modelWidth > 0, modelHeight > 0 else {
            throw MaskError.emptyInput(what: "model frame", width: modelWidth, height: modelHeight)
        }
        guard centre.width > 0, centre.height > 0 else {
            throw MaskError.emptyInput(what: "centre map", width: centre.width, height: centre.height)
        }
        if let affinity, affinity.count != Self.affinityOffsets.count {
            throw MaskError.invalidParameter(name: "affinity maps", value: "\(affinity.count)",
                                             expected: "\(Self.affinityOffsets.count), one per cell pair of InstanceCues.affinityOffsets")
        }
        let others = [("offsetY", offsetY), ("offsetX", offsetX)] + (boundary.map { [("boundary", $0)] } ?? [])
            + (affinity ?? []).enumerated().map { ("affinity \($0.offset)", $0.element) }
        for (name, map) in others where map.width != centre.width || map.height != centre.height {
            throw MaskError.invalidParameter(name: "\(name) size", value: "\(map.width)×\(map.height)",
                                             expected: "the centre map's \(centre.width)×\(centre.height)")
        }
        guard centre.width <= modelWidth, centre.height <= modelHeight else {
            throw MaskError.invalidParameter(name: "cell grid", value: "\(centre.width)×\(centre.height)",
                                             expected: "at most the model's \(modelWidth)×\(modelHeight)")
        }
        for (name, map) in [("centre", centre)] + others where !map.values.allSatisfy(\.isFinite) {
            throw MaskError.invalidParameter(name: name, value: "a value that is not finite", expected: "finite numbers")
        }
        self.init(unchecked: modelWidth, modelHeight, centre, offsetY, offsetX, boundary, affinity)
    }

    /// Cells per row and per column.
    public var cellWidth: Int { centre.width }
    /// Rows of cells.
    public var cellHeight: Int { centre.height }

    /// The cues of the mirror image (left and right swapped): every map mirrored, `offsetX` negated,
    /// and each horizontal affinity map moved `dx` cells left after mirroring (the mirror's pair
    /// `(j′, j′ + dx)` is the photo's `(j − dx, j)`, kept at cell `j − dx`; its last `dx` columns,
    /// never read, keep the mirrored values), as `Tools/instances/predict.py`'s `infer` does.
    public func mirrored() -> InstanceCues {
        func flip(_ map: FloatMap, negate: Bool = false, shift: Int = 0) -> FloatMap {
            var values = map.values
            let w = map.width
            for y in 0 ..< map.height {
                for x in 0 ..< w {
                    let source = x + shift < w ? x + shift : x  // the mirrored column moved back by `shift`
                    let v = map.values[y * w + w - 1 - source]
                    values[y * w + x] = negate ? -v : v
                }
            }
            return FloatMap(width: w, height: map.height, values: values)
        }
        // Sizes and finiteness are those of self: cannot throw.
        return InstanceCues(unchecked: modelWidth, modelHeight, flip(centre), flip(offsetY), flip(offsetX, negate: true),
                            boundary.map { flip($0) },
                            affinity.map { maps in zip(maps, Self.affinityOffsets).map { flip($0, shift: $1.dx) } })
    }

    /// The mean of several cues on the same grid and frame (mirror passes averaged as Lift averages
    /// the foreground maps); nil when `cues` is empty or they differ in size. A boundary map, or the
    /// affinity maps, are kept only when every one has them.
    public static func average(_ cues: [InstanceCues]) -> InstanceCues? {
        guard let first = cues.first,
              cues.allSatisfy({ $0.modelWidth == first.modelWidth && $0.modelHeight == first.modelHeight
                                && $0.cellWidth == first.cellWidth && $0.cellHeight == first.cellHeight })
        else { return nil }
        let scale = 1 / Float(cues.count)
        func mean(_ maps: [FloatMap]) -> FloatMap {
            var values = maps[0].values
            for map in maps.dropFirst() { for i in values.indices { values[i] += map.values[i] } }
            for i in values.indices { values[i] *= scale }
            return FloatMap(width: maps[0].width, height: maps[0].height, values: values)
        }
        let boundaries = cues.compactMap(\.boundary), affinities = cues.compactMap(\.affinity)
        return InstanceCues(unchecked: first.modelWidth, first.modelHeight, mean(cues.map(\.centre)), mean(cues.map(\.offsetY)),
                            mean(cues.map(\.offsetX)), boundaries.count == cues.count ? mean(boundaries) : nil,
                            affinities.count == cues.count ? Self.affinityOffsets.indices.map { k in mean(affinities.map { $0[k] }) } : nil)
    }

    /// Cues already known to be valid.
    private init(unchecked modelWidth: Int, _ modelHeight: Int, _ centre: FloatMap, _ offsetY: FloatMap, _ offsetX: FloatMap,
                 _ boundary: FloatMap?, _ affinity: [FloatMap]?) {
        self.modelWidth = modelWidth
        self.modelHeight = modelHeight
        self.centre = centre
        self.offsetY = offsetY
        self.offsetX = offsetX
        self.boundary = boundary
        self.affinity = affinity
    }
}
