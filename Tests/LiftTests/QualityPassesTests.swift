import Foundation
import Lift
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// The quality levels' model passes (test-time augmentation): a mirrored pass averaged with the
/// plain one, and larger-input passes averaged at the native map size.
@Suite struct QualityPassesTests {
    static func astronaut() throws -> RGBAImage {
        try Fixtures.opaqueImage(rgb: "person/astronaut.rgb", width: 256, height: 256)
    }

    static func mirrored(_ image: RGBAImage) -> RGBAImage {
        var pixels = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                let from = (y * image.width + image.width - 1 - x) * 4, to = (y * image.width + x) * 4
                for c in 0..<4 { pixels[to + c] = image.pixels[from + c] }
            }
        }
        return RGBAImage(width: image.width, height: image.height, pixels: pixels)
    }

    static func mirrored(_ map: FloatMap) -> FloatMap {
        var values = map.values
        for y in 0..<map.height {
            for x in 0..<map.width { values[y * map.width + x] = map.values[y * map.width + map.width - 1 - x] }
        }
        return FloatMap(width: map.width, height: map.height, values: values)
    }

    static func maxDifference(_ a: FloatMap, _ b: FloatMap) -> Float {
        zip(a.values, b.values).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    /// A lifter for `model` at `quality` that finds the subject model's file but not U²-Net-small's
    /// (a weights directory without it), so the subject model runs alone.
    static func withoutU2NetSmall(_ model: ModelName, quality: Quality, in scratch: ScratchDirectory) throws -> SubjectLifter {
        let weights = Fixtures.repositoryRoot.appendingPathComponent("Weights")
        for name in ["subject.safetensors", "person.safetensors", "person-landscape.safetensors", "SHA256SUMS"]
        where !FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent(name).path) {
            try FileManager.default.copyItem(at: weights.appendingPathComponent(name), to: scratch.url.appendingPathComponent(name))
        }
        return try SubjectLifter(model: model, quality: quality, threads: 2, environment: ["LIFT_WEIGHTS": scratch.url.path])
    }

    /// `balanced` averages the model on the photo and on its mirror image (mirrored back), so its map
    /// of the mirrored photo is its map of the photo, mirrored — up to float rounding in the resampling
    /// (1e-4). One pass (`fast`) has no such symmetry, which shows the check can fail. (The subject
    /// model runs alone here: `balanced`'s one U²-Net-small pass is not mirrored.)
    @Test(arguments: [ModelName.subject, .person])
    func mirroredPassMakesTheMapMirrorSymmetric(model: ModelName) throws {
        let photo = try Self.astronaut()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let balanced = try Self.withoutU2NetSmall(model, quality: .balanced, in: scratch)
        #expect(balanced.partner == nil)
        let map = try balanced.probabilityMap(for: photo)
        let ofMirror = try balanced.probabilityMap(for: Self.mirrored(photo))
        #expect(Self.maxDifference(map, Self.mirrored(ofMirror)) <= 1e-4)

        let fast = try SubjectLifter(model: model, quality: .fast, threads: 2)
        let onePass = try fast.probabilityMap(for: photo)
        let onePassOfMirror = try fast.probabilityMap(for: Self.mirrored(photo))
        #expect(Self.maxDifference(onePass, Self.mirrored(onePassOfMirror)) > 1e-3)
    }

    /// `accurate` adds passes at 1.25× the input of an open-size model; their maps are resampled to
    /// the native map size before averaging, so the map keeps `balanced`'s size, stays in 0…1, and
    /// differs from it.
    @Test func largerPassesAverageAtTheNativeMapSize() throws {
        let photo = try Self.astronaut()
        let balanced = try SubjectLifter(model: .subject, quality: .balanced, threads: 2).probabilityMap(for: photo)
        let accurate = try SubjectLifter(model: .subject, quality: .accurate, threads: 2).probabilityMap(for: photo)
        #expect(accurate.width == balanced.width && accurate.height == balanced.height)
        #expect(accurate.values.allSatisfy { (0...1).contains($0) })
        #expect(Self.maxDifference(accurate, balanced) > 1e-3)
    }

    /// With two threads the passes run side by side on copies of the model, one thread each; with
    /// one they run in turn. The averaged map must be the same bits either way.
    @Test(arguments: [Quality.balanced, .accurate])
    func passesSideBySideGiveTheSameMap(quality: Quality) throws {
        let photo = try Self.astronaut()
        let one = try SubjectLifter(model: .subject, quality: quality, threads: 1).probabilityMap(for: photo)
        let two = try SubjectLifter(model: .subject, quality: quality, threads: 2).probabilityMap(for: photo)
        #expect(one.values.map(\.bitPattern) == two.values.map(\.bitPattern))
    }

    /// U²-Net-small's map of `photo` with its graph opened to a `side`² input: the shipped file, its
    /// input spec at that size, one plain pass, min-max stretched (as `SubjectLifter` runs a pass).
    static func u2netSmall(_ photo: RGBAImage, side: Int) throws -> FloatMap {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Weights/u2netp.safetensors")
        let model = try #require(try Model(contentsOf: url).openedToAnyInputSize())
        var spec = try InputSpec(json: try #require(model.metadata["lift.input"]))
        (spec.height, spec.width) = (side, side)
        let input = Tensor(shape: TensorShape(n: 1, h: side, w: side, c: 3), values: try Preprocess(spec: spec).tensorValues(photo))
        var values = try model.run(input).toArray()
        let (low, high) = (values.min() ?? 0, values.max() ?? 1)
        values = values.map { ($0 - low) / max(high - low, .leastNormalMagnitude) }
        return FloatMap(width: side, height: side, values: values)
    }

    /// `balanced` and `accurate` with the subject model also run U²-Net-small (shipped), as the
    /// subject file's recipe says, and combine the two maps as `MapCombination` says before
    /// refinement: at `balanced` one plain pass at 0.6 of its 320² (192², its graph opened to that
    /// size); at `accurate` its photo and mirror passes at 320². Without the u2netp file (a weights
    /// directory that lacks it) the subject model runs alone. `fast` and the other models run one
    /// network.
    @Test(arguments: [Quality.balanced, .accurate])
    func theSubjectModelIsCombinedWithU2NetSmall(quality: Quality) throws {
        #expect(try SubjectLifter(model: .subject, quality: .fast, threads: 2).partner == nil)
        #expect(try SubjectLifter(model: .person, quality: quality, threads: 2).partner == nil)
        let lifter = try SubjectLifter(model: .subject, quality: quality, threads: 2)
        #expect(lifter.partner == .u2netp && lifter.modelDescription(width: 640, height: 480) == "subject+u2netp")
        let partnerRecipe = try #require(lifter.recipe[quality].partner)

        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let alone = try Self.withoutU2NetSmall(.subject, quality: quality, in: scratch)
        #expect(alone.partner == nil)

        let photo = try Self.astronaut()
        let subject = try alone.probabilityMap(for: photo)
        var partner: FloatMap
        if quality == .accurate {
            // U²-Net-small's own lifter runs the generic `balanced` at its 320²: the photo and its mirror image.
            #expect(partnerRecipe.passes == [ModelPass(scale: 1, mirrored: false), ModelPass(scale: 1, mirrored: true)])
            partner = try SubjectLifter(model: .u2netp, quality: .balanced, threads: 2).probabilityMap(for: photo)
        } else {
            #expect(partnerRecipe.passes == [ModelPass(scale: 0.6, mirrored: false)])
            partner = try Self.u2netSmall(photo, side: 192)
        }
        partner = try MaskResize.bilinear(partner, width: subject.width, height: subject.height, threads: 2)
        let combined = try lifter.probabilityMap(for: photo)
        let (w, gain) = (partnerRecipe.combination.subjectWeight, partnerRecipe.combination.gain)
        let expected = zip(subject.values, partner.values).map { a, b in min(max(0.5 + gain * (w * a + (1 - w) * b - 0.5), 0), 1) }
        #expect(combined.width == subject.width && combined.height == subject.height)
        #expect(zip(combined.values, expected).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(Self.maxDifference(combined, subject) > 1e-2)
    }
}
