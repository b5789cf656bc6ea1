import Foundation
import Lift
import Testing
import TestSupport

/// The library example of the README, compiled and run here so it cannot rot. Keep the body of
/// `readmeExample` identical to the README's code block.
private func readmeExample(photoPath: String, outputDirectory: String) throws -> Int {
    let lifter = try SubjectLifter(model: .person)           // loads Weights/person.safetensors once
    let photo = try ImageFiles.load(photoPath)                 // PNG or JPEG, straight-alpha RGBA
    let analysis = try lifter.analyze(photo)
    print("found \(analysis.subjects.count) subjects")       // largest first

    // Every subject on white, cropped with a 5 % margin.
    let cutout = try analysis.image(for: analysis.subjects, croppedToExtent: true, background: .white,
                                    layout: OutputLayout(margin: .percent(5)))
    try ImageFiles.savePNG(cutout, to: outputDirectory + "/cutout.png")

    // The subject under a point, as a transparent cut-out, and its soft mask (0…1, photo size).
    if let subject = analysis.subject(at: PixelPoint(x: 256, y: 200)) {
        try ImageFiles.savePNG(try analysis.image(for: [subject]), to: outputDirectory + "/picked.png")
        try ImageFiles.savePNG(try analysis.mask(for: [subject]).grayImage(), to: outputDirectory + "/picked.mask.png")
    }
    return analysis.subjects.count
}

@Test func readmeExampleRuns() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let directory = scratch.path
    // The README's bundled photo (512×512 JPEG), as `Tests/Consumer/run.sh` runs it too.
    let subjects = try readmeExample(photoPath: Fixtures.url("examples/astronaut.jpg").path, outputDirectory: directory)
    #expect(subjects >= 1)
    let cutout = try ImageFiles.load(directory + "/cutout.png")
    #expect(cutout.isOpaque)
    #expect(cutout.width > 0 && cutout.height > 0)
    #expect(FileManager.default.fileExists(atPath: directory + "/picked.png"))
    #expect(try ImageFiles.load(directory + "/picked.mask.png").width == 512)
}

@Test func missingWeightsAreATypedErrorNamingTheSearch() throws {
    let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("lift-no-weights-\(UUID().uuidString)").path
    let error = #expect(throws: LiftError.self) {
        _ = try SubjectLifter(model: .person, environment: ["LIFT_WEIGHTS": nowhere])
    }
    guard case .weightsNotFound(let model, let searched) = error else {
        Issue.record("expected weightsNotFound, got \(String(describing: error))")
        return
    }
    #expect(model == .person && searched == [nowhere])
    #expect(error?.description.contains("LIFT_WEIGHTS") == true)
}

@Test func qualityLevelsDifferInRefinementAndPasses() throws {
    for recipe in [Recipe.generic, try SubjectLifter(model: .subject, quality: .fast, threads: 1).recipe] {
        #expect(recipe.fast.refineEpsilon == nil)
        #expect(recipe.balanced.refineEpsilon != nil && recipe.accurate.refineEpsilon != nil)
        #expect(recipe.fast.passes.count < recipe.balanced.passes.count && recipe.balanced.passes.count < recipe.accurate.passes.count)
    }
}
