import Foundation
import LiftTensor
import LiftMask

/// One model file loaded once per pass that can run at the same time, the passes a quality level
/// runs (`Recipe.Level`), and a preprocessing per pass input size.
struct Network: Sendable {
    let name: ModelName
    /// Replicas of the model (shared weights, each with its own buffers): passes run side by side,
    /// one thread each, instead of one after the other with their many small ops split across threads.
    let models: [Model]
    let passes: [ModelPass]
    /// The preprocessing of each pass (its input size), in `passes` order.
    let preprocesses: [Preprocess]
    /// Where the instance heads' maps are among the graph outputs, when the heads are inline.
    let cueOutputs: CueOutputs?
    /// The instance heads in a file of their own, when the model names one.
    let headsFile: InstanceHeadsFile?
    /// Whether the model has instance heads, inline or in their own file.
    var hasCues: Bool { cueOutputs != nil || headsFile != nil }

    /// The model's own grouping of its instance cues (`Recipe.grouping` of the model file), when the
    /// heads are inline; heads in their own file carry theirs.
    private let fileGrouping: InstanceGrouping.Parameters?

    /// `file`'s model (plus a replica for each further pass that `threads` threads can run at once)
    /// with the input size of each of `passes` fixed (models of open size are scaled from their
    /// spec's size; fixed-size models run at their size, or, with `scalesFixedSize`, are opened to
    /// any size (`Model.openedToAnyInputSize`) and scaled from it too).
    init(_ file: ModelFile, passes requested: [ModelPass], scalesFixedSize: Bool = false, threads: Int) throws(LiftError) {
        let name = file.name
        var model = file.model
        guard let json = model.metadata["lift.input"] else {
            throw .unsupportedInputSpec(model: name, reason: "the file has no lift.input metadata")
        }
        let spec: InputSpec
        do {
            spec = try InputSpec(json: json)
        } catch {
            throw .unsupportedInputSpec(model: name, reason: error.description)
        }
        var openSize = model.inputShape.height == nil && model.inputShape.width == nil
        if !openSize, model.inputShape.height != spec.height || model.inputShape.width != spec.width || model.inputShape.channels != 3 {
            throw .unsupportedInputSpec(model: name, reason: "lift.input says \(spec.height)×\(spec.width)×3, the graph takes "
                + "\(model.inputShape.height ?? -1)×\(model.inputShape.width ?? -1)×\(model.inputShape.channels)")
        }
        if !openSize, scalesFixedSize {
            guard let opened = model.openedToAnyInputSize() else {
                throw .unsupportedInputSpec(model: name, reason: "the graph resizes to a constant size, so it only runs at its "
                    + "\(spec.height)×\(spec.width) input")
            }
            model = opened
            openSize = true
        }
        if let problem = model.maskOutputProblem(height: spec.height, width: spec.width) {
            throw .unsupportedInputSpec(model: name, reason: problem)
        }
        guard model.outputNames.first == spec.output else {
            throw .unsupportedInputSpec(model: name, reason: "lift.input names the output \(spec.output), the graph's first output is "
                + (model.outputNames.first ?? "missing"))
        }
        self.name = name
        cueOutputs = CueOutputs(outputNames: model.outputNames, after: 1)
        // A fixed-size model's passes differ only in mirroring: each distinct one runs once (the
        // average is the same, every duplicate having had its twin).
        let passes = openSize ? requested : requested.reduce(into: [ModelPass]()) { unique, pass in
            let fixed = ModelPass(scale: 1, mirrored: pass.mirrored)
            if !unique.contains(fixed) { unique.append(fixed) }
        }
        self.passes = passes
        self.models = [model] + (1 ..< max(1, min(passes.count, threads))).map { _ in model.replica() }
        headsFile = cueOutputs == nil ? try InstanceHeadsFile(for: model, at: file.url, model: name, copies: models.count) : nil
        fileGrouping = file.recipe?.grouping
        preprocesses = passes.map { pass in
            var scaled = spec
            if openSize {
                scaled.height = Self.scaled(spec.height, by: pass.scale)
                scaled.width = Self.scaled(spec.width, by: pass.scale)
            }
            return Preprocess(spec: scaled)
        }
    }

    /// The grouping tuned for the model's instance heads: their own file's `lift.recipe` (loading
    /// them), else the model file's; nil when neither carries one.
    func grouping() throws(LiftError) -> InstanceGrouping.Parameters? {
        if let headsFile, let own = try headsFile.heads().grouping { return own }
        return fileGrouping
    }

    /// `side × scale` rounded to a multiple of 32 (what down-sampling encoders divide by), at least 32.
    private static func scaled(_ side: Int, by scale: Double) -> Int {
        max(32, Int((Double(side) * scale / 32).rounded()) * 32)
    }

    /// Runs every pass on `image` and returns the average of their maps (single-channel outputs,
    /// mirrored ones mirrored back), at the first pass's output size. With several model copies
    /// and threads, the passes run side by side (threads shared out between them); the map is the same either way.
    /// With `cues` (the model has instance heads) also the average of the instance cues of the passes
    /// at the first pass's input size (the photo and its mirror image), whose model frame is the map's.
    func run(_ image: RGBAImage, threads: Int, cues: Bool,
             timings: inout StageTimings) throws(LiftError) -> (map: FloatMap, cues: InstanceCues?) {
        // Each input size is prepared once: a mirrored pass mirrors the same tensor.
        var preparing = Stopwatch()
        var inputs: [[Float]] = []
        var inputOfPass: [Int] = []
        for (k, preprocess) in preprocesses.enumerated() {
            if let twin = preprocesses[..<k].firstIndex(where: { $0.spec == preprocess.spec }) {
                inputOfPass.append(inputOfPass[twin])
                continue
            }
            do {
                inputs.append(try preprocess.tensorValues(image, threads: threads))
            } catch {
                throw .inferenceFailed(model: name, underlying: error)
            }
            inputOfPass.append(inputs.count - 1)
        }
        timings.preprocess += preparing.lap()
        let prepared = inputs, inputIndex = inputOfPass
        var maps = [FloatMap?](repeating: nil, count: passes.count)
        var passCues = [InstanceCues?](repeating: nil, count: passes.count)
        // Cues come from the passes at the first pass's size (their cells share one grid).
        let cuePasses = (0 ..< passes.count).map { cues && preprocesses[$0].spec.height == preprocesses[0].spec.height
            && preprocesses[$0].spec.width == preprocesses[0].spec.width }
        let lanes = min(models.count, threads, passes.count)
        if lanes <= 1 {
            for (k, pass) in passes.enumerated() {
                (maps[k], passCues[k]) = try run(prepared[inputIndex[k]], spec: preprocesses[k].spec, mirrored: pass.mirrored,
                                                 lane: 0, cues: cuePasses[k], threads: threads, timings: &timings)
            }
        } else {
            var clock = Stopwatch()
            var failures = [LiftError?](repeating: nil, count: passes.count)
            var passTimings = [StageTimings](repeating: StageTimings(), count: passes.count)
            maps.withUnsafeMutableBufferPointer { maps in
              passCues.withUnsafeMutableBufferPointer { passCues in
                failures.withUnsafeMutableBufferPointer { failures in
                    passTimings.withUnsafeMutableBufferPointer { passTimings in
                        let threadsPerLane = max(1, threads / lanes)
                        Parallel.forEach(count: passes.count, threads: lanes) { range in
                            // Contiguous runs of passes, one run per lane and per model copy.
                            let lane = range.lowerBound * lanes / passes.count
                            for k in range {
                                do throws(LiftError) {
                                    (maps[k], passCues[k]) = try run(prepared[inputIndex[k]], spec: preprocesses[k].spec,
                                                                     mirrored: passes[k].mirrored, lane: lane, cues: cuePasses[k],
                                                                     threads: threadsPerLane, timings: &passTimings[k])
                                } catch {
                                    failures[k] = error
                                }
                            }
                        }
                    }
                }
              }
            }
            if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
            // The lanes ran at the same time: the stage took the wall time, split as the passes' own.
            let wall = clock.lap()
            let preprocess = passTimings.map(\.preprocess).reduce(0, +), inference = passTimings.map(\.inference).reduce(0, +)
            let share = preprocess + inference > 0 ? preprocess / (preprocess + inference) : 0
            timings.preprocess += wall * share
            timings.inference += wall * (1 - share)
        }
        guard var average = maps[0] else { preconditionFailure("every quality level has at least one pass") }
        for k in maps.indices.dropFirst() {
            guard var map = maps[k] else { preconditionFailure("every pass returned a map or threw") }
            if map.width != average.width || map.height != average.height {
                do {
                    map = try MaskResize.bilinear(map, width: average.width, height: average.height, threads: threads)
                } catch {
                    throw .inferenceFailed(model: name, underlying: error)
                }
            }
            for i in map.values.indices { map.values[i] += average.values[i] }
            average = map
        }
        let scale = 1 / Float(passes.count)
        for i in average.values.indices { average.values[i] *= scale }
        guard cues else { return (average, nil) }
        guard let cueAverage = InstanceCues.average(passCues.compactMap { $0 }),
              cueAverage.modelWidth == average.width, cueAverage.modelHeight == average.height
        else {
            throw .unsupportedInputSpec(model: name, reason: "the instance cues' frame does not match the map's \(average.width)×\(average.height)")
        }
        return (average, cueAverage)
    }

    /// Runs the model copy of `lane` on a prepared input (`spec`'s NHWC values, mirrored left–right
    /// when asked) and returns its single-channel output as a map, mirrored back, and with `cues` the
    /// instance cues (mirrored back: maps flipped, horizontal offsets negated; heads in their own file
    /// run on the mask graph's `instance_features`). Adds to the preprocessing and inference times.
    private func run(_ values: [Float], spec: InputSpec, mirrored: Bool, lane: Int, cues: Bool = false, threads: Int,
                     timings: inout StageTimings) throws(LiftError) -> (FloatMap, InstanceCues?) {
        let model = models[lane]
        var clock = Stopwatch()
        let input = Tensor(shape: TensorShape(n: 1, h: spec.height, w: spec.width, c: 3), values: values)
        if mirrored { Self.mirrorRows(input.buffer, width: spec.width, channels: 3) }
        timings.preprocess += clock.lap()
        let output: Tensor
        var instanceCues: InstanceCues?
        do {
            if cues, hasCues {
                let outputs = try model.runAll(input, threads: threads)
                output = outputs[0]
                let found = try self.cues(of: outputs, lane: lane, threads: threads)
                instanceCues = mirrored ? found.mirrored() : found
            } else {
                output = try model.run(input, threads: threads)
            }
        } catch let error as LiftError {
            throw error
        } catch {
            throw .inferenceFailed(model: name, underlying: error)
        }
        timings.inference += clock.lap()
        guard output.shape.n == 1, output.shape.c == 1 else {
            throw .unsupportedInputSpec(model: name, reason: "the output \(spec.output) has shape \(output.shape), expected [1, H, W, 1]")
        }
        var map = FloatMap(width: output.shape.w, height: output.shape.h, values: output.toArray())
        if mirrored { map.values.withUnsafeMutableBufferPointer { Self.mirrorRows($0, width: map.width, channels: 1) } }
        if spec.outputNormalization == .minmax { Self.stretchToUnitRange(&map.values) }
        return (map, instanceCues)
    }

    /// The instance cues of a run's `outputs` (the mask first): inline among them, or the heads
    /// file's copy for `lane` run on their `instance_features`.
    private func cues(of outputs: [Tensor], lane: Int, threads: Int) throws -> InstanceCues {
        if let cueOutputs { return try Self.cues(outputs, at: cueOutputs, frame: outputs[0].shape) }
        guard let headsFile else { preconditionFailure("cues asked of a model without instance heads") }
        let heads = try headsFile.heads()
        let headOutputs = try heads.models[lane].runAll(outputs[headsFile.featuresIndex], threads: threads)
        return try Self.cues(headOutputs, at: heads.outputs, frame: outputs[0].shape)
    }

    /// The instance cues in a run's `outputs` (centre and boundary `[1, h, w, 1]`, offset
    /// `[1, h, w, 2]` as (dy, dx), affinity `[1, h, w, 6]` in `InstanceCues.affinityOffsets` order),
    /// over a model frame of `frame`'s size.
    private static func cues(_ outputs: [Tensor], at index: CueOutputs, frame: TensorShape) throws -> InstanceCues {
        /// Each channel of `tensor` as a map (one copy of the tensor, however many channels).
        func maps(_ tensor: Tensor) -> [FloatMap] {
            let s = tensor.shape, all = tensor.toArray()
            return (0 ..< s.c).map { c in FloatMap(width: s.w, height: s.h, values: stride(from: c, to: all.count, by: s.c).map { all[$0] }) }
        }
        let centre = outputs[index.centre], offset = outputs[index.offset], boundary = index.boundary.map { outputs[$0] }
        let affinity = index.affinity.map { outputs[$0] }, pairs = InstanceCues.affinityOffsets.count
        guard centre.shape.c == 1, offset.shape.c == 2, boundary.map({ $0.shape.c == 1 }) ?? true,
              affinity.map({ $0.shape.c == pairs }) ?? true else {
            throw MaskError.invalidParameter(
                name: "instance cue channels",
                value: "centre \(centre.shape.c), offset \(offset.shape.c), boundary \(boundary?.shape.c ?? 0), affinity \(affinity?.shape.c ?? 0)",
                expected: "centre 1, offset 2 (dy, dx), boundary 1, affinity \(pairs)")
        }
        let offsets = maps(offset)
        return try InstanceCues(modelWidth: frame.w, modelHeight: frame.h, centre: maps(centre)[0], offsetY: offsets[0],
                                offsetX: offsets[1], boundary: boundary.map { maps($0)[0] }, affinity: affinity.map(maps))
    }

    /// Maps the smallest value to 0 and the largest to 1, linearly (a constant map becomes 0).
    private static func stretchToUnitRange(_ values: inout [Float]) {
        guard let low = values.min(), let high = values.max() else { return }
        let scale: Float = high > low ? 1 / (high - low) : 0
        for i in values.indices { values[i] = (values[i] - low) * scale }
    }

    /// Reverses the pixel order of every row of a row-major `width × channels` interleaved buffer.
    private static func mirrorRows(_ values: UnsafeMutableBufferPointer<Float>, width: Int, channels: Int) {
        let rowCount = width * channels
        for start in stride(from: 0, to: values.count, by: rowCount) {
            var left = start, right = start + rowCount - channels
            while left < right {
                for c in 0..<channels { values.swapAt(left + c, right + c) }
                left += channels
                right -= channels
            }
        }
    }
}
