import LiftImage
import LiftMask
import Testing
import TestSupport

@Suite struct InstanceSegmentationTests {
    /// Three blobs of areas 4, 16 and 1 (a speck), plus a 7×5 ring of area 20 around a 5×3 hole.
    static let mask = MaskPatterns.make(20, 12) { x, y in
        (x < 2 && y < 2) || (x >= 5 && x < 9 && y >= 5 && y < 9) || (x == 0 && y == 11)
            || (x >= 12 && x < 19 && y >= 2 && y < 7 && !(x >= 13 && x < 18 && y >= 3 && y < 6))
    }

    @Test func instancesAreNumberedByDecreasingArea() {
        let segmentation = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(1)))
        #expect(segmentation.instances.map(\.area) == [20, 16, 4, 1])
        #expect(segmentation.instances.map(\.label) == [1, 2, 3, 4])
        #expect(segmentation.instances[0].boundingBox == PixelBox(x: 12, y: 2, width: 7, height: 5))
        #expect(segmentation.labels.label(x: 6, y: 6) == 2)
        #expect(segmentation.labels.label(x: 12, y: 2) == 1)
        #expect(segmentation.labels.label(x: 15, y: 4) == 0)
    }

    @Test func specksBelowMinimumAreaAreDropped() {
        let segmentation = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(5)))
        #expect(segmentation.instances.map(\.area) == [20, 16])
        #expect(segmentation.labels.label(x: 0, y: 0) == 0)
        #expect(segmentation.labels.label(x: 0, y: 11) == 0)
        #expect(segmentation.labels.count == 2)
    }

    @Test func relativeMinimumAreaScalesWithImage() {
        #expect(MinimumArea.fraction(0.0005).pixels(forImagePixels: 12_000_000) == 6000)
        #expect(MinimumArea.fraction(0.01).pixels(forImagePixels: 240) == 3)
        let segmentation = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .fraction(0.01)))
        #expect(segmentation.instances.map(\.area) == [20, 16, 4])
    }

    @Test func keepLargestOnly() {
        let segmentation = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(1), keepLargestOnly: true))
        #expect(segmentation.instances.map(\.area) == [20])
        #expect(segmentation.labels.labels.filter { $0 != 0 }.count == 20)
    }

    @Test func holesAreKeptByDefaultAndFilledOnRequest() {
        let kept = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(1)))
        #expect(kept.labels.label(x: 15, y: 4) == 0)
        let filled = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(1), fillHoles: true))
        #expect(filled.instances[0].area == 35)
        #expect(filled.labels.label(x: 15, y: 4) == 1)
    }

    @Test(arguments: MaskPatterns.all.map(\.name), Connectivity.allCases)
    func holeFillingMatchesBorderFloodFill(name: String, connectivity: Connectivity) throws {
        let mask = try #require(MaskPatterns.all.first { $0.name == name }).mask
        let expected = ReferenceMasks.filledHoles(mask, eight: connectivity == .eight)
        #expect(HoleFilling.filled(mask, connectivity: connectivity, threads: 2) == expected)
    }

    @Test func islandInsideFilledRingJoinsTheRing() {
        let ring = MaskPatterns.make(30, 30) { x, y in
            let d = max(abs(x - 15), abs(y - 15))
            return d == 10 || d <= 2
        }
        let segmentation = InstanceSegmentation(mask: ring, options: InstanceOptions(minimumArea: .pixels(1), fillHoles: true))
        #expect(segmentation.instances.count == 1)
        #expect(segmentation.instances[0].area == 21 * 21)
    }

    @Test func instanceAtPointAndNearestWithinRadius() {
        let segmentation = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(1)))
        let labels = segmentation.labels
        #expect(InstanceQuery.label(at: PixelPoint(x: 6.5, y: 6.5), in: labels, searchRadius: 0) == 2)
        #expect(InstanceQuery.label(at: PixelPoint(x: 10.5, y: 8.5), in: labels, searchRadius: 1) == nil)
        #expect(InstanceQuery.label(at: PixelPoint(x: 10.5, y: 8.5), in: labels, searchRadius: 2) == 2)
        #expect(InstanceQuery.label(at: PixelPoint(x: 10.5, y: 6.5), in: labels, searchRadius: 2) == 1)  // tie: smaller label
        #expect(InstanceQuery.label(at: PixelPoint(x: 15.5, y: 4.5), in: labels, searchRadius: 1) == nil)
        #expect(InstanceQuery.label(at: PixelPoint(x: 15.5, y: 4.5), in: labels, searchRadius: 2) == 1)
        #expect(InstanceQuery.label(at: PixelPoint(x: -50, y: -50), in: labels, searchRadius: 3) == nil)
        #expect(InstanceQuery.label(at: PixelPoint(x: .nan, y: 1), in: labels, searchRadius: 3) == nil)
        // Far beyond Int's range: no trap on conversion, just no subject.
        #expect(InstanceQuery.label(at: PixelPoint(x: 1e19, y: 5), in: labels, searchRadius: 3) == nil)
        #expect(InstanceQuery.label(at: PixelPoint(x: 6.5, y: -1e300), in: labels, searchRadius: 3) == nil)
    }

    @Test func ownershipGivesFringePixelsToNearestInstance() {
        let labels = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(1))).labels
        let ones = FloatMap(width: labels.width, height: labels.height, value: 1)
        for threads in [1, 2] {
            let ownership = OwnershipMap(labels: labels, reach: 2, threads: threads)
            func owner(_ x: Int, _ y: Int) -> Int32 {
                for label in Int32(1) ... Int32(labels.count)
                where ownership.alpha(ones, labels: labels, keeping: [label], threads: threads).values[y * labels.width + x] == 1 {
                    return label
                }
                return 0
            }
            #expect(owner(10, 8) == 2)   // two pixels right of the 4×4 block
            #expect(owner(11, 8) == 0)   // chamfer 9 from the block, 7 from the ring: beyond 3·2
            #expect(owner(3, 1) == 3)    // next to the 2×2 block
            #expect(owner(15, 4) == 1)   // middle of the ring's hole, two rows from the wall
            #expect(owner(6, 6) == 2 && owner(12, 2) == 1)
        }
    }

    @Test func ownedAlphaSnapsLevelsAndFillsHoles() {
        let labels = LabelMap(width: 4, height: 1, labels: [1, 1, 0, 0], count: 1)
        let soft = FloatMap(width: 4, height: 1, values: [0.2, 0.99, 0.5, 0.02])
        let alpha = OwnershipMap(labels: labels, reach: 10).ownedAlpha(soft, labels: labels, threshold: 0.5, snap: 0.03)
        // Label 1 at soft 0.2 < threshold: a filled hole → 1; 0.99 → 1; 0.5 stays 0.5; 0.02 → 0.
        #expect(alpha.values == [1, 1, 0.5, 0])
    }
}
