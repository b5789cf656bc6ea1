import LiftImage

/// Finding an instance by position.
public enum InstanceQuery {
    /// The label under `point` (pixel coordinates), or the label of the nearest labelled pixel whose
    /// centre lies within `searchRadius` pixels of the point (ties: the smaller label); `nil` when none.
    public static func label(at point: PixelPoint, in labels: LabelMap, searchRadius: Int) -> Int32? {
        label(at: point, in: LabelRows(labels), searchRadius: searchRadius)
    }

    /// `label(at:in:searchRadius:)` for labels kept as runs.
    package static func label(at point: PixelPoint, in labels: RunLabels, searchRadius: Int) -> Int32? {
        label(at: point, in: LabelRows(labels), searchRadius: searchRadius)
    }

    private static func label(at point: PixelPoint, in labels: LabelRows, searchRadius: Int) -> Int32? {
        guard point.x.isFinite, point.y.isFinite else { return nil }
        let px = Int(saturating: point.x, rounding: .down), py = Int(saturating: point.y, rounding: .down)
        let direct = labels.label(x: px, y: py)
        if direct != 0 { return direct }
        // Clamped so the window's edges cannot overflow (points are within ±2⁶⁰): any larger radius
        // already reaches every pixel.
        let radius = min(max(0, searchRadius), 1 << 61)
        var best: (distance: Double, label: Int32)?
        let top = max(0, py - radius - 1), bottom = min(labels.height - 1, py + radius + 1)
        let left = max(0, px - radius - 1), right = min(labels.width - 1, px + radius + 1)
        guard top <= bottom, left <= right else { return nil }
        let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: labels.width)
        defer { scratch.deallocate() }
        labels.withRowReader { read in
            for y in top ... bottom {
                let row = read(y, scratch)
                for x in left ... right {
                    let label = row[x]
                    if label == 0 { continue }
                    let dx = Double(x) + 0.5 - point.x, dy = Double(y) + 0.5 - point.y
                    let distance = (dx * dx + dy * dy).squareRoot()
                    guard distance <= Double(radius) else { continue }
                    if let current = best, current.distance < distance || (current.distance == distance && current.label <= label) {
                        continue
                    }
                    best = (distance, label)
                }
            }
        }
        return best?.label
    }
}
