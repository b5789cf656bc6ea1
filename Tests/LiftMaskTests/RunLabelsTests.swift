import LiftImage
import LiftMask
import Testing
import TestSupport

/// Labels kept as runs (what `Analysis` holds) answer every question as the label image does.
@Suite struct RunLabelsTests {
    /// A random blobby soft map: sums of a few discs plus noise, so there are specks, touching
    /// blobs, holes, runs at both image edges and rows with none.
    static func softMap(width: Int, height: Int, seed: UInt64) -> FloatMap {
        var generator = SeededGenerator(seed: seed)
        let discs = (0 ..< 6).map { _ in
            (Double.random(in: 0 ... Double(width), using: &generator), Double.random(in: 0 ... Double(height), using: &generator),
             Double.random(in: 2 ... max(3, Double(max(width, height)) / 4), using: &generator))
        }
        var values = [Float](repeating: 0, count: width * height)
        for y in 0 ..< height {
            for x in 0 ..< width {
                var v = Float.random(in: 0 ... 0.45, using: &generator)
                for (cx, cy, r) in discs where (Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy) < r * r { v += 0.5 }
                if Int.random(in: 0 ..< 40, using: &generator) == 0 { v = 0.9 }  // specks
                values[y * width + x] = min(v, 1)
            }
        }
        return FloatMap(width: width, height: height, values: values)
    }

    @Test(arguments: [(1, 1), (37, 23), (130, 70), (64, 200)])
    func runsMatchTheLabelImage(width: Int, height: Int) {
        let soft = Self.softMap(width: width, height: height, seed: UInt64(width * 31 + height))
        let mask = Threshold.mask(soft, threshold: 0.5)
        for connectivity in Connectivity.allCases {
            let options = InstanceOptions(connectivity: connectivity, minimumArea: .pixels(3))
            let fromMask = InstanceSegmentation(mask: mask, score: soft, options: options, threads: 2)
            let fromRows = InstanceSegmentation(thresholding: MapRows(soft), at: 0.5, scoreRows: nil, options: options, threads: 2)
            let labels = fromMask.labels
            #expect(fromRows.instances.map(\.area) == fromMask.instances.map(\.area))
            #expect(fromRows.labels == labels)
            let runs = fromRows.runLabels
            #expect(runs.labelMap(threads: 1) == labels)
            for y in 0 ..< height { for x in 0 ..< width { #expect(runs.label(x: x, y: y) == labels.label(x: x, y: y)) } }
            #expect(runs.label(x: -1, y: 0) == 0 && runs.label(x: width, y: 0) == 0)
            // Ownership, the owned alpha and picking by point do not depend on how labels are kept.
            let byImage = OwnershipMap(labels: labels, reach: 5, threads: 2), byRuns = OwnershipMap(labels: runs, reach: 5, threads: 2)
            let alphaByImage = byImage.ownedAlpha(soft, labels: labels, threshold: 0.5, snap: 0.03)
            #expect(byRuns.ownedAlpha(soft, labels: runs, threshold: 0.5, snap: 0.03) == alphaByImage)
            let keep: Set<Int32> = labels.count > 1 ? [2] : [1]
            #expect(byRuns.alpha(alphaByImage, labels: runs, keeping: keep) == byImage.alpha(alphaByImage, labels: labels, keeping: keep))
            for point in [PixelPoint(x: 0.5, y: 0.5), PixelPoint(x: Double(width) / 2, y: Double(height) / 3)] {
                #expect(InstanceQuery.label(at: point, in: runs, searchRadius: 9) == InstanceQuery.label(at: point, in: labels, searchRadius: 9))
            }
            if labels.count > 1 {
                let relabelled = runs.relabelled([0, 1] + [Int32](repeating: 0, count: labels.count - 1), count: 1)
                #expect(relabelled.labelMap().labels == labels.labels.map { $0 == 1 ? 1 : 0 })
            }
        }
    }
}
