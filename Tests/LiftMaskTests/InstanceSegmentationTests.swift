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
    }

    @Test func ownershipGivesFringePixelsToNearestInstance() {
        let labels = InstanceSegmentation(mask: Self.mask, options: InstanceOptions(minimumArea: .pixels(1))).labels
        for threads in [1, 2] {
            let owners = Ownership.nearestLabels(labels, within: 2, threads: threads)
            #expect(owners.label(x: 10, y: 8) == 2)   // two pixels right of the 4×4 block
            #expect(owners.label(x: 11, y: 8) == 0)   // chamfer 9 from the block, 7 from the ring: beyond 3·2
            #expect(owners.label(x: 3, y: 1) == 3)    // next to the 2×2 block
            #expect(owners.label(x: 15, y: 4) == 1)   // middle of the ring's hole, two rows from the wall
            for i in labels.labels.indices where labels.labels[i] != 0 { #expect(owners.labels[i] == labels.labels[i]) }
        }
    }
}
