import Foundation
import Lift
import Testing
import TestSupport

/// `--instances-by components|model`: the JSON report says which was used, and a model
/// without instance heads is an error before any image is touched.
@Suite(.enabled(if: SamplePhotos.weightsAvailable, Comment(rawValue: SamplePhotos.noWeights)))
struct InstancesByTests {
    private func scratchWithPhoto() throws -> ScratchDirectory {
        let scratch = try ScratchDirectory()
        try scratch.write(try SamplePhotos.astronaut(), to: "person.png")
        return scratch
    }

    private func instancesBy(_ result: LiftBinary.Result) throws -> String? {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput)) as? [String: Any])
        let image = try #require((object["images"] as? [[String: Any]])?.first)
        return image["instancesBy"] as? String
    }

    @Test func theReportSaysComponentsByDefault() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["person.png", "--json", "-", "-q", "--quality", "fast"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try instancesBy(result) == "components")
    }

    @Test func aModelWithHeadsGivesInstancesByModel() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let model = Fixtures.url("instances/heads.safetensors").path
        let result = try LiftBinary.run(["person.png", "--model", model, "--instances-by", "model", "--json", "-", "-q",
                                         "--labels", "labels.png"], in: scratch.url)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try instancesBy(result) == "model")
        #expect(scratch.exists("person.cutout.png") && scratch.exists("labels.png"))
    }

    @Test func aModelWithoutHeadsFailsBeforeAnyImage() throws {
        let scratch = try scratchWithPhoto()
        defer { scratch.remove() }
        let result = try LiftBinary.run(["person.png", "--model", "person", "--instances-by", "model"], in: scratch.url)
        #expect(result.status == 1)
        #expect(result.standardError.contains("the person model has no instance heads"), "\(result.standardError)")
        #expect(!scratch.exists("person.cutout.png"))
    }

    @Test func anUnknownSourceIsAUsageError() throws {
        let result = try LiftBinary.run(["person.png", "--instances-by", "heads"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("expected components, model"), "\(result.standardError)")
    }
}
