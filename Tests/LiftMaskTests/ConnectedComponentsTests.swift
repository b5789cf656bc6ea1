import LiftImage
import LiftMask
import Testing
import TestSupport

@Suite struct ConnectedComponentsTests {
    static let cases = MaskPatterns.all.map(\.name)

    @Test(arguments: cases, Connectivity.allCases)
    func matchesFloodFill(name: String, connectivity: Connectivity) throws {
        let mask = try #require(MaskPatterns.all.first { $0.name == name }).mask
        let reference = ReferenceMasks.floodFillLabels(mask, eight: connectivity == .eight)
        for threads in [1, 2] {
            let (labels, components) = ConnectedComponents.label(mask, connectivity: connectivity, threads: threads)
            #expect(labels.width == mask.width && labels.height == mask.height)
            #expect(labels.count == reference.components.count)
            #expect(labels.labels == reference.labels, "labels differ for \(name), \(threads) thread(s)")
            try #require(components.count == reference.components.count)
            for (k, (component, expected)) in zip(components, reference.components).enumerated() {
                #expect(component.label == Int32(k + 1))
                #expect(component.area == expected.area)
                #expect(component.boundingBox == PixelBox(x: expected.minX, y: expected.minY,
                                                          width: expected.maxX - expected.minX + 1,
                                                          height: expected.maxY - expected.minY + 1))
                #expect(abs(component.centroid.x - (Double(expected.sumX) / Double(expected.area) + 0.5)) < 1e-9)
                #expect(abs(component.centroid.y - (Double(expected.sumY) / Double(expected.area) + 0.5)) < 1e-9)
                #expect(component.score == 1)
            }
        }
    }

    @Test func diagonalTouchesJoinOnlyWithEightConnectivity() {
        let mask = MaskPatterns.make(4, 4) { x, y in x == y }
        #expect(ConnectedComponents.label(mask, connectivity: .eight).components.count == 1)
        #expect(ConnectedComponents.label(mask, connectivity: .four).components.count == 4)
    }

    @Test func scoreIsMeanOfMapOverComponent() {
        let mask = MaskPatterns.make(6, 2) { x, _ in x < 2 || x > 3 }
        let score = FloatMap(width: 6, height: 2, values: [0.2, 0.4, 0, 0, 1, 1, 0.6, 0.8, 0, 0, 0.5, 0.5])
        let components = ConnectedComponents.label(mask, score: score).components
        #expect(components.count == 2)
        #expect(abs(components[0].score - 0.5) < 1e-6)
        #expect(abs(components[1].score - 0.75) < 1e-6)
    }

    @Test func labelPreviewKeepsLabelsDistinct() {
        let labels = LabelMap(width: 4, height: 1, labels: [0, 1, 2, 3], count: 3)
        #expect(labels.grayImage().pixels == [0, 255, 155, 55])
        #expect(labels.label(x: 9, y: 0) == 0 && labels.label(x: 3, y: 0) == 3)
    }
}
