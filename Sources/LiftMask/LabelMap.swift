import LiftImage

/// Which neighbours join two foreground pixels into one component.
public enum Connectivity: Int, Sendable, Hashable, CaseIterable {
    /// Edge neighbours only (left, right, up, down).
    case four = 4
    /// Edge and corner neighbours: diagonal touches join.
    case eight = 8

    /// The connectivity of the background that pairs with this one for holes (4 ↔ 8), so that a
    /// closed ring in this connectivity always encloses its hole.
    public var dual: Connectivity { self == .four ? .eight : .four }
}

/// An instance label image: 0 is background, `1…count` are instances.
///
/// Layout: row-major `Int32`, one per pixel, no padding; `labels.count == width * height`.
public struct LabelMap: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Labels, row-major; 0 = background.
    public var labels: [Int32]
    /// Number of instances; labels run from 1 to `count`.
    public let count: Int

    /// Wraps a label image; every label must lie in `0…count`.
    public init(width: Int, height: Int, labels: [Int32], count: Int) {
        precondition(labels.count == width * height, "LabelMap needs width*height labels")
        self.width = width
        self.height = height
        self.labels = labels
        self.count = count
    }

    /// The label at column `x`, row `y` (0 outside the image).
    public func label(x: Int, y: Int) -> Int32 {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        return labels[y * width + x]
    }

    /// A grey preview: background black, instance `k` at grey `255 - (k-1) * step`, distinct up to 255 labels.
    public func grayImage() -> GrayImage {
        let step = count <= 1 ? 0 : max(1, 200 / (count - 1))
        return GrayImage(width: width, height: height, pixels: labels.map { label in
            label == 0 ? 0 : UInt8(clamping: max(1, 255 - (Int(label) - 1) * step))
        })
    }
}
