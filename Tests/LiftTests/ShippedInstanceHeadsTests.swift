import Foundation
import Lift
import Testing
import TestSupport

/// The shipped subject model's instance heads end to end on
/// `Tests/Fixtures/examples/three-cups.jpg`: three copies of one cup whose saucers touch, so the
/// mask is one connected component (`Tools/fixtures/make_three_cups.py`; the cup's shape is
/// GrabCut's, not a Lift model's).
@Suite struct ShippedInstanceHeadsTests {
    static func photo() throws -> RGBAImage { try ImageFiles.load(Fixtures.url("examples/three-cups.jpg").path) }

    /// With the grouping the heads' file carries (`lift.recipe`: centre 0.25, the split check and
    /// the affinity split) the heads split the one component into the three cups; with a
    /// centre threshold above the cups' peaks the affinities alone do, and without them too the
    /// component stays whole, as connected components leave it.
    @Test func threeTouchingCupsAreThreeSubjectsOverTheSameMask() throws {
        guard (try? ModelCatalog.url(for: .subject)) != nil else { return }
        var lifter = try SubjectLifter(model: .subject, threads: 2)
        #expect(lifter.hasInstanceCues)
        let photo = try Self.photo()
        let components = try lifter.analyze(photo)
        #expect(components.subjects.count == 1)
        lifter.analysisOptions.instances = .model
        let byModel = try lifter.analyze(photo)
        try #require(byModel.subjects.count == 3)
        // The same mask, split: one subject per cup, each under its cup (x 140, 320, 500; y 210 is the coffee).
        #expect(byModel.labels.labels.map { $0 != 0 } == components.labels.labels.map { $0 != 0 })
        #expect(try byModel.maskImage(for: byModel.subjects) == components.maskImage(for: components.subjects))
        let picked = try [140, 320, 500].map { x in try #require(byModel.subject(at: PixelPoint(x: x, y: 210))) }
        #expect(Set(picked.map(\.index)).count == 3)
        for (subject, x) in zip(picked, [140, 320, 500]) {
            let box = subject.boundingBox
            #expect(box.x <= x && x < box.x + box.width && box.width < 300, "\(box)")
        }
        // Above the cups' peaks the centres split nothing; the affinity split alone still finds the
        // three cups (since Lift 2.7.0), and without it the component stays whole.
        var grouping = try lifter.instanceGrouping(width: photo.width, height: photo.height)
        #expect(byModel.options.grouping == grouping)
        grouping.centreThreshold = 0.95
        lifter.analysisOptions.grouping = grouping
        let affinitiesAlone = try lifter.analyze(photo)
        #expect(affinitiesAlone.subjects.count == 3)
        #expect(Set(try [140, 320, 500].map { x in try #require(affinitiesAlone.subject(at: PixelPoint(x: x, y: 210))).index }).count == 3)
        lifter.analysisOptions.grouping?.affinitySplit = nil
        #expect(try lifter.analyze(photo).subjects.count == 1)
    }
}
