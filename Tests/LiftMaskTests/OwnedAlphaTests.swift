import LiftImage
import LiftMask
import Testing

/// The refined alpha kept as a byte per pixel (`OwnedAlpha`) renders exactly the Float alpha that
/// `OwnershipMap.ownedAlpha` makes from the stored soft map, for every subset of subjects.
@Suite struct OwnedAlphaTests {
    @Test(arguments: [(37, 23, false), (130, 70, true), (64, 200, true), (1, 1, true)])
    func bytesPerPixelGiveTheExactAlpha(width: Int, height: Int, refine: Bool) throws {
        let small = RunLabelsTests.softMap(width: max(1, width / 4), height: max(1, height / 4), seed: UInt64(height))
        let upsampled = try MaskResize.bilinearRows(small, width: width, height: height)
        let (photo, _) = GuidedFilterTests.scene(width: width, height: height, seed: 3)
        let soft: any MapRowSampler = refine
            ? GuidedFilter(radius: 3, epsilon: 1e-3, subsampling: 2).output(guide: photo, input: MapRows(upsampled), inputThreshold: 0.5,
                                                                            threads: 2)
            : upsampled
        let stored = MapRows(soft).materialized(threads: 2)
        let segmentation = InstanceSegmentation(thresholding: MapRows(soft), at: 0.5, scoreRows: nil,
                                                options: InstanceOptions(minimumArea: .pixels(2)), threads: 2)
        let labels = segmentation.runLabels, ownership = OwnershipMap(labels: labels, reach: 6, threads: 2)
        let expected = ownership.ownedAlpha(stored, labels: labels, threshold: 0.5, snap: 0.03)
        let owned = OwnedAlpha(soft: soft, labels: labels, ownership: ownership, threshold: 0.5, snap: 0.03, keeping: nil, threads: 2)
        #expect(owned.rows().materialized(threads: 1) == expected)
        #expect(width == 1 || expected.values.contains { $0 > 0 && $0 < 1 })  // edges to recompute
        for keep in [Set<Int32>(), [1], [2, 3]] {
            #expect(owned.rows(keeping: owned.keepingTable(keep)).materialized(threads: 2)
                    == ownership.alpha(expected, labels: labels, keeping: keep))
        }
        // Made with a keep table (a keep-largest analysis): zero outside instance 1, exact inside.
        let largest = OwnedAlpha(soft: soft, labels: labels, ownership: ownership, threshold: 0.5, snap: 0.03,
                                 keeping: owned.keepingTable([1]), threads: 2)
        #expect(largest.rows().materialized(threads: 2) == ownership.alpha(expected, labels: labels, keeping: [1]))
    }
}
