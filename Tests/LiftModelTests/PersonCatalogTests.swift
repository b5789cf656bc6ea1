import Foundation
import LiftModel
import TestSupport
import Testing

@Suite("ModelCatalog: locating weights and picking the person variant")
struct PersonCatalogTests {
    @Test("Both person models are found in the source tree's Weights/")
    func findsPersonWeights() throws {
        for model in [ModelName.person, .personLandscape] {
            let url = try ModelCatalog.url(for: model, environment: [:], executable: nil)
            #expect(url.standardizedFileURL.path
                == Fixtures.repositoryRoot.appendingPathComponent("Weights/\(model.fileName)").standardizedFileURL.path)
        }
    }

    @Test("A Weights/ folder above the executable is found before the source tree")
    func walksUpFromExecutable() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lift-catalog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let weights = root.appendingPathComponent("Weights")
        let bin = root.appendingPathComponent("build/release")
        try FileManager.default.createDirectory(at: weights, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try Data([1]).write(to: weights.appendingPathComponent("subject.safetensors"))
        let url = try ModelCatalog.url(for: .subject, environment: [:], executable: bin.appendingPathComponent("lift"))
        #expect(url.standardizedFileURL.path == weights.appendingPathComponent("subject.safetensors").standardizedFileURL.path)
    }

    @Test("LIFT_WEIGHTS is the only place looked at when set, and the error lists it")
    func environmentOverrides() throws {
        let missing = "/nonexistent/lift-weights"
        #expect(ModelCatalog.searchDirectories(environment: ["LIFT_WEIGHTS": missing], executable: nil).map(\.path) == [missing])
        #expect(throws: ModelCatalogError.weightsNotFound(model: "person", searched: [missing])) {
            try ModelCatalog.url(for: .person, environment: ["LIFT_WEIGHTS": missing], executable: nil)
        }
    }

    @Test("Photos wider than 4:3 get the landscape model", arguments: [
        (1920, 1080, ModelName.personLandscape), (1500, 1000, .personLandscape), (1024, 768, .person),
        (1000, 1000, .person), (1080, 1920, .person),
    ])
    func picksVariant(width: Int, height: Int, expected: ModelName) {
        #expect(ModelCatalog.variant(of: .person, width: width, height: height) == expected)
        #expect(ModelCatalog.variant(of: .subject, width: width, height: height) == .subject)
    }
}
