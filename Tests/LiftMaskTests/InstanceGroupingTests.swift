import Foundation
import LiftImage
import LiftMask
import Testing
import TestSupport

/// Perfect instance cues of an id map, at /4, as `Tools/instances/group.py`'s self-check makes them
/// with `targets.instance_targets(ids, count, sigma: 4, r: 2)`: cell (i, j) samples model pixel
/// (4i + 1, 4j + 1); offsets point at the instance's centre of mass, minus 0.5 (the cell centre is
/// 4i + 1.5); the boundary marks pixels within the 5 × 5 ellipse of two different instances.
private struct PerfectCues {
    let ids: [UInt8], size: Int, count: Int

    /// The self-check's scene on a 256 × 256 model frame: a touching pair (1, 2), one object in two
    /// parts (3) and a lone blob (4).
    static func selfCheckScene() -> PerfectCues {
        var ids = [UInt8](repeating: 0, count: 256 * 256)
        func fill(_ rows: Range<Int>, _ columns: Range<Int>, _ id: UInt8) {
            for y in rows { for x in columns { ids[y * 256 + x] = id } }
        }
        fill(40 ..< 120, 30 ..< 110, 1)
        fill(40 ..< 120, 110 ..< 190, 2)
        fill(160 ..< 200, 20 ..< 80, 3)
        fill(160 ..< 200, 100 ..< 160, 3)
        fill(170 ..< 230, 200 ..< 250, 4)
        return PerfectCues(ids: ids, size: 256, count: 4)
    }

    /// The foreground (1 on instances) at model size.
    var foreground: FloatMap { FloatMap(width: size, height: size, values: ids.map { $0 > 0 ? 1 : 0 }) }

    func cues(boundary: Bool = true, centreless: Bool = false, zeroBoundary: Bool = false) throws -> InstanceCues {
        var sum = [(y: Double, x: Double, n: Double)](repeating: (0, 0, 0), count: count + 1)
        for y in 0 ..< size { for x in 0 ..< size where ids[y * size + x] > 0 {
            let i = Int(ids[y * size + x])
            sum[i] = (sum[i].y + Double(y), sum[i].x + Double(x), sum[i].n + 1)
        } }
        let centres = sum.map { (y: $0.y / $0.n, x: $0.x / $0.n) }
        // The 5 × 5 ellipse of cv2.getStructuringElement(MORPH_ELLIPSE): rows ±1 and 0 whole, ±2 only the middle.
        func near(_ y: Int, _ x: Int) -> Int {
            var seen = Set<UInt8>()
            for dy in -2 ... 2 { for dx in -2 ... 2 where abs(dy) <= 1 || dx == 0 {
                let yy = y + dy, xx = x + dx
                if yy >= 0, xx >= 0, yy < size, xx < size, ids[yy * size + xx] > 0 { seen.insert(ids[yy * size + xx]) }
            } }
            return seen.count
        }
        let cells = size / 4
        var centre = [Float](repeating: 0, count: cells * cells), oy = centre, ox = centre, bd = centre
        for i in 0 ..< cells { for j in 0 ..< cells {
            let y = 4 * i + 1, x = 4 * j + 1, c = i * cells + j
            for k in 1 ... count {
                let (cy, cx) = centres[k]
                guard abs(Double(y) - cy) <= 14, abs(Double(x) - cx) <= 14 else { continue }
                let g = Float(exp(-((Double(y) - cy) * (Double(y) - cy) + (Double(x) - cx) * (Double(x) - cx)) / 32))
                centre[c] = max(centre[c], g)
            }
            let id = Int(ids[y * size + x])
            oy[c] = (id > 0 ? Float(centres[id].y - Double(y)) : 0) - 0.5
            ox[c] = (id > 0 ? Float(centres[id].x - Double(x)) : 0) - 0.5
            bd[c] = near(y, x) >= 2 && !zeroBoundary ? 1 : 0
        } }
        func map(_ v: [Float]) -> FloatMap { FloatMap(width: cells, height: cells, values: v) }
        return try InstanceCues(modelWidth: size, modelHeight: size, centre: map(centreless ? [Float](repeating: 0, count: centre.count) : centre),
                                offsetY: map(oy), offsetX: map(ox), boundary: boundary ? map(bd) : nil)
    }
}

/// The instances of `foreground` (model size) at `width × height`: the mask as group.py's step 1
/// makes it (bilinear, ≥ 0.5), its components, regrouped by `cues`.
private func group(_ foreground: FloatMap, _ cues: InstanceCues, width: Int, height: Int,
                   parameters: InstanceGrouping.Parameters = .init(), threads: Int = 2) throws -> (InstanceSegmentation, GrayImage) {
    let mask = Threshold.mask(try MaskResize.bilinear(foreground, width: width, height: height), threshold: 0.5)
    let segmentation = InstanceSegmentation(mask: mask, threads: threads)
    return (try segmentation.grouped(by: cues, parameters: parameters, scoreRows: nil, threads: threads), mask)
}

// group.py's self_check, case by case.

@Test func touchingPairSplitsAndTwoPartsJoinWithTheHeads() throws {
    let scene = PerfectCues.selfCheckScene()
    let (result, mask) = try group(scene.foreground, try scene.cues(), width: 300, height: 320)
    #expect(result.instances.count == 4)
    let labels = result.labels
    // The two parts of object 3 (model rows 160–200, columns 20–80 and 100–160) are one instance.
    let y = 180 * 320 / 256, left = labels.label(x: 50 * 300 / 256, y: y), right = labels.label(x: 130 * 300 / 256, y: y)
    #expect(left != 0 && left == right)
    // The union is the mask, exactly.
    #expect(labels.labels.map { $0 != 0 } == mask.pixels.map { $0 != 0 })
    #expect(result.instances.map(\.area).reduce(0, +) == mask.pixels.filter { $0 != 0 }.count)
}

@Test func offsetsAloneSplitWithoutABoundaryMap() throws {
    let scene = PerfectCues.selfCheckScene()
    let parameters = InstanceGrouping.Parameters(boundaryThreshold: nil)
    #expect(try group(scene.foreground, try scene.cues(boundary: false), width: 256, height: 256).0.instances.count == 4)
    #expect(try group(scene.foreground, try scene.cues(), width: 256, height: 256, parameters: parameters).0.instances.count == 4)
}

@Test func aPairWithoutPredictedBoundaryStaysOne() throws {
    let scene = PerfectCues.selfCheckScene()
    #expect(try group(scene.foreground, try scene.cues(zeroBoundary: true), width: 256, height: 256).0.instances.count == 3)
}

@Test func withoutPeaksTheComponentsStand() throws {
    let scene = PerfectCues.selfCheckScene()
    let (result, mask) = try group(scene.foreground, try scene.cues(centreless: true), width: 256, height: 256)
    let components = InstanceSegmentation(mask: mask, threads: 1)
    #expect(result.instances.count == 4)
    #expect(result.instances == components.instances)
    #expect(result.labels == components.labels)
}

// Parity with group.py on the committed fixtures.

/// `Tests/Fixtures/instances/group/NAME.json` (written by `Tools/instances/make_group_fixtures.py`).
private struct GroupFixture: Decodable {
    struct Params: Decodable {
        let centre_threshold: Float, nms: Int, top_k: Int, min_piece: Double, boundary_threshold: Double?, join_distance: Double
        let min_support: Double
        let split_check: [Double]?, split_probability: Double
        let fg_threshold: Double, speck: Double
    }
    let photo: [Int], model: [Int], cells: [Int], boundary: Bool, params: Params, instances: Int
    /// The affinity split's [bias, minimum piece] (`affinity-*` cases, which have NAME.affinity.f32).
    let affinity_split: [Double]?
}

private func grayPNG(_ path: String) throws -> GrayImage {
    let image = try ImageIO.decode(try Fixtures.bytes(path))
    return GrayImage(width: image.width, height: image.height, pixels: stride(from: 0, to: image.pixels.count, by: 4).map { image.pixels[$0] })
}

@Test(arguments: ["selfcheck", "noisy", "noisy-offsets-alone", "scene0", "scene1", "scene2", "scene3", "scene4",
                  "spurious-peak", "support-above-every-peak", "split-check", "split-check-support",
                  "affinity-centreless", "affinity-scene0", "affinity-scene1", "affinity-scene2", "affinity-scene3"])
func groupingMatchesGroupPy(name: String) throws {
    let base = "instances/group/\(name)"
    let fixture = try JSONDecoder().decode(GroupFixture.self, from: Data(Fixtures.bytes(base + ".json")))
    let (hc, wc) = (fixture.cells[0], fixture.cells[1])
    func cells(_ values: [Float]) -> FloatMap { FloatMap(width: wc, height: hc, values: values) }
    let offsets = try Fixtures.float32s(base + ".offset.f32")
    let cues = try InstanceCues(modelWidth: fixture.model[1], modelHeight: fixture.model[0],
                                centre: cells(try Fixtures.float32s(base + ".centre.f32")),
                                offsetY: cells(stride(from: 0, to: offsets.count, by: 2).map { offsets[$0] }),
                                offsetX: cells(stride(from: 1, to: offsets.count, by: 2).map { offsets[$0] }),
                                boundary: fixture.boundary ? cells(try Fixtures.float32s(base + ".boundary.f32")) : nil,
                                affinity: try fixture.affinity_split.map { _ in
                                    let maps = try Fixtures.float32s(base + ".affinity.f32"), n = hc * wc
                                    return (0 ..< maps.count / n).map { cells(Array(maps[$0 * n ..< ($0 + 1) * n])) }
                                })
    let p = fixture.params
    let parameters = InstanceGrouping.Parameters(centreThreshold: p.centre_threshold, peakWindow: p.nms, maximumPeaks: p.top_k,
                                                 minimumPiece: p.min_piece, boundaryThreshold: p.boundary_threshold,
                                                 joinDistance: p.join_distance, minimumSupport: p.min_support,
                                                 splitCheck: p.split_check.map {
                                                     .init(bias: $0[0], peak: $0[1], seam: $0[2], spread: $0[3],
                                                           support: $0.count > 4 ? $0[4] : 0, probability: p.split_probability)
                                                 },
                                                 affinitySplit: fixture.affinity_split.map { .init(bias: Float($0[0]), minimumPiece: $0[1]) })
    let mask = try grayPNG(base + ".mask.png")
    let expected = try grayPNG(base + ".labels.png")
    #expect(mask.width == fixture.photo[1] && mask.height == fixture.photo[0])
    for threads in [1, 3] {
        let segmentation = InstanceSegmentation(mask: mask, options: InstanceOptions(minimumArea: .fraction(p.speck)), threads: threads)
        let result = try segmentation.grouped(by: cues, parameters: parameters, scoreRows: nil, threads: threads)
        #expect(result.instances.count == fixture.instances)
        let labels = result.labels.labels
        let differing = zip(labels, expected.pixels).filter { $0.0 != Int32($0.1) }.count
        #expect(differing == 0, "\(name), \(threads) threads: \(differing) pixels differ from group.py's labels")
        // Statistics agree with the label map.
        for instance in result.instances {
            #expect(instance.area == labels.filter { $0 == instance.label }.count)
        }
    }
}

// Inputs a caller can get wrong.

@Test func cuesOfMismatchedSizesOrNotFiniteAreTypedErrors() {
    let map = FloatMap(width: 4, height: 4, value: 0), other = FloatMap(width: 3, height: 4, value: 0)
    #expect(throws: MaskError.self) { try InstanceCues(modelWidth: 16, modelHeight: 16, centre: map, offsetY: other, offsetX: map) }
    #expect(throws: MaskError.self) { try InstanceCues(modelWidth: 2, modelHeight: 16, centre: map, offsetY: map, offsetX: map) }
    #expect(throws: MaskError.self) { try InstanceCues(modelWidth: 0, modelHeight: 16, centre: map, offsetY: map, offsetX: map) }
    var nan = map
    nan.values[5] = .nan
    #expect(throws: MaskError.self) { try InstanceCues(modelWidth: 16, modelHeight: 16, centre: map, offsetY: map, offsetX: map, boundary: nan) }
    #expect(throws: MaskError.self) { try InstanceGrouping.Parameters(maximumPeaks: 0).validate() }
    #expect(throws: MaskError.self) { try InstanceGrouping.Parameters(boundaryThreshold: 2).validate() }
    #expect(throws: MaskError.self) { try InstanceGrouping.Parameters(minimumSupport: -0.1).validate() }
    #expect(throws: MaskError.self) { try InstanceCues(modelWidth: 16, modelHeight: 16, centre: map, offsetY: map, offsetX: map, affinity: [map]) }
    #expect(throws: MaskError.self) {
        try InstanceCues(modelWidth: 16, modelHeight: 16, centre: map, offsetY: map, offsetX: map, affinity: [map, map, map, map, map, nan])
    }
    #expect(throws: MaskError.self) {
        try InstanceCues(modelWidth: 16, modelHeight: 16, centre: map, offsetY: map, offsetX: map, affinity: [map, map, map, map, map, other])
    }
    for (bias, piece) in [(Float(-0.1), 0.01), (1.5, 0.01), (0.5, -1), (0.5, .nan)] {
        #expect(throws: MaskError.self) {
            try InstanceGrouping.Parameters(affinitySplit: .init(bias: bias, minimumPiece: piece)).validate()
        }
    }
    for probability in [0, 1, Double.nan] {
        let check = InstanceGrouping.SplitCheck(bias: 0, peak: 1, seam: 1, spread: 1, probability: probability)
        #expect(throws: MaskError.self) { try InstanceGrouping.Parameters(splitCheck: check).validate() }
    }
    let infinite = InstanceGrouping.SplitCheck(bias: .infinity, peak: 1, seam: 1, spread: 1, probability: 0.5)
    #expect(throws: MaskError.self) { try InstanceGrouping.Parameters(splitCheck: infinite).validate() }
    #expect(throws: Never.self) { try InstanceGrouping.Parameters().validate() }
}

@Test func mirroredCuesFlipTheMapsAndNegateHorizontalOffsets() throws {
    let values: [Float] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    let map = FloatMap(width: 3, height: 2, values: values)
    let cues = try InstanceCues(modelWidth: 12, modelHeight: 8, centre: map, offsetY: map, offsetX: map, boundary: map)
    let mirrored = cues.mirrored()
    #expect(mirrored.centre.values == [0.3, 0.2, 0.1, 0.6, 0.5, 0.4])
    #expect(mirrored.offsetX.values == [-0.3, -0.2, -0.1, -0.6, -0.5, -0.4])
    #expect(mirrored.mirrored() == cues)
    let average = try #require(InstanceCues.average([cues, mirrored]))
    #expect(abs(average.centre.values[0] - 0.2) < 1e-7)
    #expect(abs(average.offsetX.values[0] - (0.1 - 0.3) / 2) < 1e-7)
}

@Test func mirroredAffinitiesPairTheSameCellsAsThePhotos() throws {
    // Two rows of ids across 10 cells; the model's maps are pair indicators: map k at (i, j) is 1
    // when cells (i, j) and (i + dy, j + dx) of affinityOffsets[k] share an id. Maps made on the
    // mirrored ids, mirrored back, must be the photo's own wherever the pair is on the grid.
    let ids = [1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3], width = 10, height = 2
    func pairMaps(_ ids: [Int]) -> [FloatMap] {
        InstanceCues.affinityOffsets.map { dy, dx in
            FloatMap(width: width, height: height, values: (0 ..< width * height).map { c in
                let y = c / width, x = c % width
                guard y + dy < height, x + dx < width else { return 0.5 }  // off the grid: never read
                return ids[c] == ids[(y + dy) * width + x + dx] ? 1 : 0
            })
        }
    }
    let mirroredIDs = (0 ..< width * height).map { ids[($0 / width) * width + width - 1 - $0 % width] }
    let zero = FloatMap(width: width, height: height, value: 0)
    let seen = try InstanceCues(modelWidth: 40, modelHeight: 8, centre: zero, offsetY: zero, offsetX: zero,
                                affinity: pairMaps(mirroredIDs))
    let back = try #require(seen.mirrored().affinity)
    for (k, (dy, dx)) in InstanceCues.affinityOffsets.enumerated() {
        for y in 0 ..< max(height - dy, 0) { for x in 0 ..< max(width - dx, 0) {
            #expect(back[k].values[y * width + x] == pairMaps(ids)[k].values[y * width + x], "map \(k) at (\(y), \(x))")
        } }
    }
    // Averaged with the unmirrored pass, map by map.
    let photo = try InstanceCues(modelWidth: 40, modelHeight: 8, centre: zero, offsetY: zero, offsetX: zero, affinity: pairMaps(ids))
    let average = try #require(InstanceCues.average([photo, seen.mirrored()])?.affinity)
    #expect(average[2].values[0] == pairMaps(ids)[2].values[0] && average.count == 6)
    // Without affinities in every pass, none in the average.
    #expect(InstanceCues.average([photo, try InstanceCues(modelWidth: 40, modelHeight: 8, centre: zero, offsetY: zero, offsetX: zero)])?.affinity == nil)
}

@Test func tooManyComponentsTimesPeaksIsATypedErrorBeforeAllocating() throws {
    // Isolated pixels every other row and column: 260² = 67,600 components (no speck rule), × 64 peaks
    // is past the limit; × 8 is not.
    let side = 520
    let mask = GrayImage(width: side, height: side, pixels: (0 ..< side * side).map { ($0 / side) % 2 == 0 && ($0 % side) % 2 == 0 ? 255 : 0 })
    let segmentation = InstanceSegmentation(mask: mask, options: InstanceOptions(minimumArea: .pixels(0)), threads: 2)
    #expect(segmentation.instances.count == 67_600)
    let cues = try PerfectCues.selfCheckScene().cues()
    #expect(throws: MaskError.self) {
        try segmentation.grouped(by: cues, parameters: InstanceGrouping.Parameters(maximumPeaks: 64), scoreRows: nil, threads: 1)
    }
    #expect(throws: Never.self) {
        try segmentation.grouped(by: cues, parameters: InstanceGrouping.Parameters(maximumPeaks: 8), scoreRows: nil, threads: 2)
    }
}
