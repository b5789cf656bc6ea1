import LiftImage

/// What a network with instance heads says about instances (issue 39; Panoptic-DeepLab's cues):
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

    /// Cues on one cell grid.
    /// - Throws: `MaskError.emptyInput` for an empty map or model size, `.invalidParameter` when the
    ///   maps differ in size or the grid is finer than the model's pixels, `.invalidParameter` for a
    ///   value that is not finite (a broken model).
    public init(modelWidth: Int, modelHeight: Int, centre: FloatMap, offsetY: FloatMap, offsetX: FloatMap,
                boundary: FloatMap? = nil) throws {
        guard modelWidth > 0, modelHeight > 0 else {
            throw MaskError.emptyInput(what: "model frame", width: modelWidth, height: modelHeight)
        }
        guard centre.width > 0, centre.height > 0 else {
            throw MaskError.emptyInput(what: "centre map", width: centre.width, height: centre.height)
        }
        for (name, map) in [("offsetY", offsetY), ("offsetX", offsetX)] + (boundary.map { [("boundary", $0)] } ?? [])
        where map.width != centre.width || map.height != centre.height {
            throw MaskError.invalidParameter(name: "\(name) size", value: "\(map.width)×\(map.height)",
                                             expected: "the centre map's \(centre.width)×\(centre.height)")
        }
        guard centre.width <= modelWidth, centre.height <= modelHeight else {
            throw MaskError.invalidParameter(name: "cell grid", value: "\(centre.width)×\(centre.height)",
                                             expected: "at most the model's \(modelWidth)×\(modelHeight)")
        }
        for (name, map) in [("centre", centre), ("offsetY", offsetY), ("offsetX", offsetX)] + (boundary.map { [("boundary", $0)] } ?? [])
        where !map.values.allSatisfy(\.isFinite) {
            throw MaskError.invalidParameter(name: name, value: "a value that is not finite", expected: "finite numbers")
        }
        self.init(unchecked: modelWidth, modelHeight, centre, offsetY, offsetX, boundary)
    }

    /// Cells per row and per column.
    public var cellWidth: Int { centre.width }
    /// Rows of cells.
    public var cellHeight: Int { centre.height }

    /// The cues of the mirror image (left and right swapped): every map mirrored, `offsetX` negated.
    public func mirrored() -> InstanceCues {
        func flip(_ map: FloatMap, negate: Bool = false) -> FloatMap {
            var values = map.values
            for y in 0 ..< map.height {
                for x in 0 ..< map.width {
                    let v = map.values[y * map.width + map.width - 1 - x]
                    values[y * map.width + x] = negate ? -v : v
                }
            }
            return FloatMap(width: map.width, height: map.height, values: values)
        }
        // Sizes and finiteness are those of self: cannot throw.
        return InstanceCues(unchecked: modelWidth, modelHeight, flip(centre), flip(offsetY), flip(offsetX, negate: true),
                            boundary.map { flip($0) })
    }

    /// The mean of several cues on the same grid and frame (mirror passes averaged as Lift averages
    /// the foreground maps); nil when `cues` is empty or they differ in size. A boundary map is kept
    /// only when every one has it.
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
        let boundaries = cues.compactMap(\.boundary)
        return InstanceCues(unchecked: first.modelWidth, first.modelHeight, mean(cues.map(\.centre)), mean(cues.map(\.offsetY)),
                            mean(cues.map(\.offsetX)), boundaries.count == cues.count ? mean(boundaries) : nil)
    }

    /// Cues already known to be valid.
    private init(unchecked modelWidth: Int, _ modelHeight: Int, _ centre: FloatMap, _ offsetY: FloatMap, _ offsetX: FloatMap,
                 _ boundary: FloatMap?) {
        self.modelWidth = modelWidth
        self.modelHeight = modelHeight
        self.centre = centre
        self.offsetY = offsetY
        self.offsetX = offsetX
        self.boundary = boundary
    }
}
