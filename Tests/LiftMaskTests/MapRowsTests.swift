import LiftImage
import LiftMask
import Testing
import TestSupport

/// An upsampled map read row by row gives the stages the very values of the stored map, so the mask
/// stage can skip storing it without changing a byte.
@Suite struct MapRowsTests {
    /// A random model-sized map.
    static func map(width: Int, height: Int, seed: UInt64) -> FloatMap {
        var generator = SeededGenerator(seed: seed)
        return FloatMap(width: width, height: height, values: (0 ..< width * height).map { _ in Float.random(in: 0 ... 1, using: &generator) })
    }

    @Test(arguments: [(7, 5, 37, 23, 1), (16, 16, 130, 70, 4), (9, 12, 1031, 77, 2), (3, 3, 5, 3, 2)])
    func upsampledRowsFeedTheFilterAndScoresLikeTheStoredMap(mapWidth: Int, mapHeight: Int, width: Int, height: Int, subsampling: Int) throws {
        let small = Self.map(width: mapWidth, height: mapHeight, seed: UInt64(width))
        let rows = MapRows(try MaskResize.bilinearRows(small, width: width, height: height))
        let stored = try MaskResize.bilinear(small, width: width, height: height, threads: 1)
        #expect(rows.materialized(threads: 2) == stored)
        let (photo, _) = GuidedFilterTests.scene(width: width, height: height, seed: 7)
        let filter = GuidedFilter(radius: 3, epsilon: 1e-3, subsampling: subsampling)
        for threads in [1, 2] {
            #expect(filter.apply(guide: photo, input: rows, inputThreshold: 0.5, threads: threads)
                    == filter.apply(guide: photo, input: stored, inputThreshold: 0.5, threads: threads))
        }
        let mask = Threshold.mask(stored, threshold: 0.5)
        let options = InstanceOptions(minimumArea: .pixels(1))
        let fromRows = InstanceSegmentation(mask: mask, scoreRows: rows, options: options, threads: 2)
        let fromStored = InstanceSegmentation(mask: mask, score: stored, options: options, threads: 2)
        #expect(fromRows.instances == fromStored.instances)
        #expect(!fromRows.instances.isEmpty)
    }
}
