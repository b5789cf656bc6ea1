import Foundation
import Lift
import Testing
import TestSupport

/// Subjects from a model's instance cues through `Analysis` and `SubjectLifter`.
@Suite struct InstanceSourceTests {
    /// Two squares side by side that touch (model pixels: rows 2..<14, columns 4..<16 and 16..<28 of
    /// a 32 × 16 frame), on a 128 × 64 photo (4 photo pixels per model pixel).
    static let modelWidth = 32, modelHeight = 16, scale = 4

    static func square(_ y: Double, _ x: Double) -> Int? {
        guard y >= 2, y < 14, x >= 4, x < 28 else { return nil }
        return x < 16 ? 0 : 1
    }

    static let photo: RGBAImage = {
        let width = modelWidth * scale, height = modelHeight * scale
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0 ..< height { for x in 0 ..< width {
            let o = (y * width + x) * 4
            let colour: [UInt8] = switch square((Double(y) + 0.5) / Double(scale), (Double(x) + 0.5) / Double(scale)) {
            case 0: [200, 40, 40]
            case 1: [40, 40, 200]
            default: [128, 128, 128]
            }
            pixels[o ..< o + 3] = colour[...]
        } }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }()

    static let probability = FloatMap(width: modelWidth, height: modelHeight, values: (0 ..< modelWidth * modelHeight).map {
        square(Double($0 / modelWidth) + 0.5, Double($0 % modelWidth) + 0.5) == nil ? 0 : 1
    })

    /// Perfect cues at stride 4: a Gaussian (σ 4 px) at each square's centre, offsets to it, a
    /// boundary where the squares meet (`touching`) or nowhere.
    static func cues(touching: Bool = true) throws -> InstanceCues {
        let cells = (w: modelWidth / 4, h: modelHeight / 4), centres = [(8.0, 10.0), (8.0, 22.0)]
        var centre = [Float](repeating: 0, count: cells.w * cells.h), dy = centre, dx = centre, boundary = centre
        for i in 0 ..< cells.h { for j in 0 ..< cells.w {
            let y = Double(4 * i) + 1.5, x = Double(4 * j) + 1.5, c = i * cells.w + j
            centre[c] = centres.map { Float(exp(-(($0.0 - y) * ($0.0 - y) + ($0.1 - x) * ($0.1 - x)) / 32)) }.max() ?? 0
            if let k = square(y, x) {
                dy[c] = Float(centres[k].0 - y)
                dx[c] = Float(centres[k].1 - x)
            }
            boundary[c] = touching && abs(x - 16) <= 2.5 && square(y, x) != nil ? 1 : 0
        } }
        func map(_ v: [Float]) -> FloatMap { FloatMap(width: cells.w, height: cells.h, values: v) }
        return try InstanceCues(modelWidth: modelWidth, modelHeight: modelHeight, centre: map(centre), offsetY: map(dy),
                                offsetX: map(dx), boundary: map(boundary))
    }

    static func analysis(_ source: InstanceSource, cues: InstanceCues?,
                         grouping: InstanceGrouping.Parameters = offsetsAlone) throws -> Analysis {
        try Analysis(photo: photo, probability: probability, instanceCues: cues,
                     options: Analysis.Options(instances: source, grouping: grouping))
    }

    @Test func theModelsCuesSplitTouchingSubjectsOverTheSameMask() throws {
        let byModel = try Self.analysis(.model, cues: try Self.cues())
        let byComponents = try Self.analysis(.components, cues: nil)
        #expect(byComponents.subjects.count == 1)
        try #require(byModel.subjects.count == 2)
        #expect(byModel.options.instances == .model)
        // The union of the instances is today's mask, and the alpha is the same.
        #expect(byModel.labels.labels.map { $0 != 0 } == byComponents.labels.labels.map { $0 != 0 })
        #expect(byModel.subjects.map(\.area).reduce(0, +) == byComponents.subjects[0].area)
        #expect(try byModel.maskImage(for: byModel.subjects) == byComponents.maskImage(for: byComponents.subjects))
        // Each square is a subject of its own, and picking by point finds it.
        let left = try #require(byModel.subject(at: PixelPoint(x: 40, y: 32))), right = try #require(byModel.subject(at: PixelPoint(x: 88, y: 32)))
        #expect(left != right)
        #expect(left.boundingBox.maxX <= 66 && right.boundingBox.x >= 62)
        #expect(byModel.labels.label(x: 40, y: 32) == Int32(left.index + 1))
        // Cut-outs of one subject hold only its square.
        let image = try byModel.image(for: [left], croppedToExtent: true)
        #expect(image.width <= 52)
    }

    /// A grouping without a boundary check (the shipped heads' have none): the offsets alone split.
    static let offsetsAlone = InstanceGrouping.Parameters(centreThreshold: 0.25, minimumPiece: 0.01, boundaryThreshold: nil)

    @Test func withABoundaryCheckAPairWithoutPredictedBoundaryStaysOne() throws {
        let checked = InstanceGrouping.Parameters(boundaryThreshold: 0.3)
        #expect(try Self.analysis(.model, cues: try Self.cues(touching: false), grouping: checked).subjects.count == 1)
        #expect(try Self.analysis(.model, cues: try Self.cues(touching: true), grouping: checked).subjects.count == 2)
        // Without a boundary check the offsets alone split.
        #expect(try Self.analysis(.model, cues: try Self.cues(touching: false)).subjects.count == 2)
    }

    @Test func componentsIgnoreCuesAndTheModelNeedsThem() throws {
        let plain = try Self.analysis(.components, cues: nil), ignoring = try Self.analysis(.components, cues: try Self.cues())
        #expect(plain.subjects == ignoring.subjects)
        #expect(throws: MaskError.self) { try Self.analysis(.model, cues: nil) }
        let other = try InstanceCues(modelWidth: 64, modelHeight: 16, centre: FloatMap(width: 8, height: 4, value: 0),
                                     offsetY: FloatMap(width: 8, height: 4, value: 0), offsetX: FloatMap(width: 8, height: 4, value: 0))
        #expect(throws: MaskError.self) { try Self.analysis(.model, cues: other) }
        var options = Analysis.Options(instances: .model)
        options.grouping = InstanceGrouping.Parameters(maximumPeaks: 0)
        #expect(throws: MaskError.self) {
            try Analysis(photo: Self.photo, probability: Self.probability, instanceCues: try Self.cues(), options: options)
        }
    }

    /// A model file with instance heads (the parity fixture's seeded stand-in) runs them through the
    /// lifter: the cues cover the map's frame, and the subjects' union is the components' mask.
    @Test func aLifterRunsTheModelsInstanceHeads() throws {
        let file = ModelName(file: Fixtures.url("instances/heads.safetensors"))
        var lifter = try SubjectLifter(model: file, quality: .balanced, threads: 2)
        #expect(lifter.hasInstanceCues)
        let cues = try #require(try lifter.instanceCues(for: Self.photo))
        #expect(cues.modelWidth == 64 && cues.modelHeight == 64 && cues.cellWidth == 16 && cues.cellHeight == 16)
        let components = try lifter.analyze(Self.photo)
        lifter.analysisOptions.instances = .model
        var grouping = try lifter.instanceGrouping(width: Self.photo.width, height: Self.photo.height)
        #expect(grouping == InstanceGrouping.Parameters(), "the stand-in's file carries no recipe")
        grouping.centreThreshold = 0  // the stand-in's centres are weak: let every local maximum count
        grouping.boundaryThreshold = nil
        lifter.analysisOptions.grouping = grouping
        let byModel = try lifter.analyze(Self.photo)
        #expect(byModel.options.instances == .model)
        #expect(byModel.labels.labels.map { $0 != 0 } == components.labels.labels.map { $0 != 0 })
    }

    @Test func aModelWithoutInstanceHeadsIsATypedError() throws {
        guard (try? ModelCatalog.url(for: .person)) != nil else { return }
        var lifter = try SubjectLifter(model: .person, quality: .fast, threads: 2)
        #expect(!lifter.hasInstanceCues)
        #expect(try lifter.instanceCues(for: Self.photo) == nil)
        lifter.analysisOptions.instances = .model
        do {
            _ = try lifter.analyze(Self.photo)
            Issue.record("instances by model with a model without heads must throw")
        } catch {
            guard case .noInstanceCues(let model) = error else { Issue.record("unexpected \(error)"); return }
            #expect([ModelName.person, .personLandscape].contains(model))  // the photo is wider than 4:3
            #expect(error.description.contains("no instance heads"))
        }
    }
}
