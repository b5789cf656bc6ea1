import Foundation
import LiftModel
import Testing

/// What `--model` arguments name, and where `ModelCatalog` finds rembg's models.
@Suite struct ModelNameTests {
    @Test func argumentsNameShippedModelsFilesOrRembgModels() {
        #expect(ModelName(argument: "u2netp") == .u2netp && ModelName(argument: "subject").isShipped)
        let file = ModelName(argument: "models/isnet.onnx")
        #expect(file.file?.path.hasSuffix("models/isnet.onnx") == true && file.rawValue == "isnet" && !file.isShipped)
        #expect(ModelName(argument: "mine.safetensors").file != nil)
        let rembg = ModelName(argument: "isnet-general-use")
        #expect(rembg.file == nil && !rembg.isShipped && rembg.fileName == "isnet-general-use.onnx")
        #expect(ModelName(rawValue: "isnet-general-use") == nil)
    }

    @Test func rembgModelsAreReadFromU2NetHomeAndNeverFetched() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lift-u2net-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["U2NET_HOME": directory.path]
        let model = ModelName(argument: "silueta")
        do {
            _ = try ModelCatalog.url(for: model, environment: environment)
            Issue.record("a missing rembg model was found")
        } catch {
            #expect(error == .modelNotFound(name: "silueta", looked: [directory.appendingPathComponent("silueta.onnx").path]))
            #expect(error.description.contains("never downloads"))
        }
        #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent("silueta.onnx").path, contents: Data([0])))
        #expect(try ModelCatalog.url(for: model, environment: environment).lastPathComponent == "silueta.onnx")
        #expect(ModelCatalog.rembgDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.u2net")
    }
}
