import Foundation
import LiftTensor
import Synchronization

/// A `lift.graph/1` model loaded from a `.safetensors` file, ready to run (see GRAPH-FORMAT.md).
///
/// Loading validates the file and the graph, fuses standalone activations into the convolution or
/// element-wise op before them, packs every convolution's weights once, and checks shapes at the
/// declared input size. `run` plans buffers by liveness the first time it sees an input size and
/// reuses them afterwards: a second run at the same size allocates no tensors.
///
/// ```swift
/// let model = try Model(contentsOf: url)
/// let mask = try model.run(image)            // image: Tensor [1, H, W, C], mask: first graph output
/// ```
/// A `Model` may be shared between threads; runs are serialised by a lock.
public final class Model: @unchecked Sendable {
    /// The graph input's declared size: `[1, height, width, channels]`, nil where any size is accepted.
    public struct InputShape: Sendable, Equatable {
        /// Name of the graph input.
        public let name: String
        /// Rows, or nil when the graph accepts any height.
        public let height: Int?
        /// Columns, or nil when the graph accepts any width.
        public let width: Int?
        /// Channels.
        public let channels: Int

        /// A declared input `[1, height, width, channels]` (nil: any size).
        public init(name: String, height: Int?, width: Int?, channels: Int) {
            self.name = name
            self.height = height
            self.width = width
            self.channels = channels
        }
    }

    /// The file's `__metadata__` (`lift.graph`, `lift.input`, `lift.provenance`, …).
    public let metadata: [String: String]
    /// The declared input size.
    public let inputShape: InputShape
    /// Names of the graph outputs; `run` returns the first, `runAll` all of them.
    public let outputNames: [String]
    /// The limits the model was loaded with; they also bound the sizes `run` accepts.
    public let limits: WeightLimits

    private let program: Program
    private let lock = NSLock()
    private var plan: ExecutionPlan?
    private var allocated = 0

    /// Reads, validates and prepares the model file at `url`.
    /// - Throws: `SafeTensorsError` for a malformed file, `GraphError` for a malformed graph, weights
    ///   that are not finite, or sizes past `limits`.
    /// - Parameter expectedSHA256: the file's recorded digest (`WeightsManifest`, 64 hexadecimal
    ///   digits): the bytes are hashed on another thread while the model is prepared (hashing the
    ///   7.5 MB subject model alone takes ~45 ms), and a different digest throws
    ///   `SafeTensorsError.digestMismatch` before the model can be used, whatever preparing found.
    public convenience init(contentsOf url: URL, limits: WeightLimits = .default, expectedSHA256: String? = nil) throws {
        let bytes = try SafeTensors.readFile(url, limits: limits)
        guard let expected = expectedSHA256?.lowercased() else {
            try self.init(bytes: bytes, limits: limits)
            return
        }
        let digest = Mutex<String?>(nil)
        let hashed = DispatchGroup()
        DispatchQueue.global().async(group: hashed) { digest.withLock { $0 = SHA256.hex(bytes) } }
        /// Waits for the digest; throws when it is not the recorded one (that error wins over any other).
        func verify() throws {
            hashed.wait()
            let actual = digest.withLock { $0 } ?? ""
            guard actual == expected else { throw SafeTensorsError.digestMismatch(path: url.path, expected: expected, actual: actual) }
        }
        do {
            try self.init(weights: try SafeTensors(bytes: bytes, limits: limits), limits: limits)
        } catch {
            try verify()
            throw error
        }
        try verify()
    }

    /// Prepares a model from the bytes of a `.safetensors` file.
    public convenience init(bytes: [UInt8], limits: WeightLimits = .default) throws {
        try self.init(weights: try SafeTensors(bytes: bytes, limits: limits), limits: limits)
    }

    /// Prepares a model from an already validated weight file.
    public init(weights: SafeTensors, limits: WeightLimits = .default) throws {
        let graph = try Graph(weights: weights, limits: limits)
        program = try Program(graph: graph, limits: limits)
        metadata = weights.metadata
        inputShape = InputShape(name: graph.input.name, height: graph.input.height, width: graph.input.width,
                                channels: graph.input.channels)
        outputNames = graph.outputs.map { graph.valueNames[$0] }
        self.limits = limits
        // Check every node's shapes once at the declared size (256 for a size left open).
        let probe = TensorShape(n: 1, h: graph.input.height ?? 256, w: graph.input.width ?? 256, c: graph.input.channels)
        _ = try program.inferShapes(input: probe, limits: limits)
    }

    /// Another instance of this model that shares its packed weights (read-only) but plans its own
    /// activation buffers, so the two can run at the same time on different threads; costs no
    /// reading, validation or packing.
    public func replica() -> Model {
        Model(sharing: self, program: program)
    }

    /// A replica (as `replica()`) that takes any input size, for a graph declared at one size whose
    /// operations all follow the input's size, such as rembg's U²-Net-small: it runs at 192² as well
    /// as at its 320². Nil when the graph resizes to a constant size somewhere (it is tied to its
    /// declared input). A model whose size is already open returns a replica.
    public func openedToAnyInputSize() -> Model? {
        program.openingInputSize().map { Model(sharing: self, program: $0) }
    }

    private init(sharing other: Model, program: Program) {
        self.program = program
        metadata = other.metadata
        inputShape = InputShape(name: program.input.name, height: program.input.height, width: program.input.width,
                                channels: program.input.channels)
        outputNames = other.outputNames
        limits = other.limits
    }

    /// The shape of the first output for an input of `shape`.
    /// - Throws: `GraphError` when the model cannot take that input.
    public func outputShape(forInput shape: TensorShape) throws -> TensorShape {
        try program.inferShapes(input: shape, limits: limits)[program.outputs[0]]
    }

    /// Runs the model on `input` (NHWC `[1, H, W, C]`) and returns a new tensor holding the first output.
    /// Only the operations that output needs run (a model's instance heads do not).
    /// - Parameter threads: parallel parts per kernel (results do not depend on it).
    /// - Throws: `GraphError.inputShapeMismatch` or `.shapeMismatch` when the input does not fit.
    public func run(_ input: Tensor, threads: Int = Parallel.defaultThreads) throws -> Tensor {
        lock.lock()
        defer { lock.unlock() }
        let result = try execute(input, threads: threads)
        let output = Tensor(shape: result.shape)
        output.data.update(from: result.data, count: result.count)
        return output
    }

    /// Why the first output cannot be a mask for a `height × width` RGB input, or nil when it is one
    /// (`[1, height', width', 1]`): checked when a model is loaded or imported, so a model that cannot
    /// cut anything out is refused before any photo is decoded and run through it.
    public func maskOutputProblem(height: Int, width: Int) -> String? {
        let shape: TensorShape
        do {
            shape = try outputShape(forInput: TensorShape(n: 1, h: height, w: width, c: inputShape.channels))
        } catch {
            return "for a \(width)×\(height) input its output cannot be computed: \(error)"
        }
        guard shape.n == 1, shape.c == 1 else {
            return "its output \(outputNames.first ?? "") has \(shape.c) channels (shape \(shape)) for a \(width)×\(height) input; "
                + "a mask has one"
        }
        return nil
    }

    /// The shapes of every graph output, in `outputNames` order, for an input of `shape`.
    /// - Throws: `GraphError` when the model cannot take that input.
    public func outputShapes(forInput shape: TensorShape) throws -> [TensorShape] {
        let shapes = try program.inferShapes(input: shape, limits: limits)
        return program.outputs.map { shapes[$0] }
    }

    /// Runs the model on `input` (NHWC `[1, H, W, C]`) once and returns every graph output as a new
    /// tensor, in `outputNames` order (a model with instance heads: the mask, then its cues).
    /// - Parameter threads: parallel parts per kernel (results do not depend on it).
    /// - Throws: `GraphError.inputShapeMismatch` or `.shapeMismatch` when the input does not fit.
    public func runAll(_ input: Tensor, threads: Int = Parallel.defaultThreads) throws -> [Tensor] {
        lock.lock()
        defer { lock.unlock() }
        _ = try execute(input, threads: threads, allOutputs: true)
        guard let plan else { preconditionFailure("execute leaves a plan") }
        return plan.outputs.map { result in
            let output = Tensor(shape: result.shape)
            output.data.update(from: result.data, count: result.count)
            return output
        }
    }

    /// Runs the model on `input` and writes the first output into `output`, which must already have
    /// the output shape (`outputShape(forInput:)`). Allocates nothing once the input size is planned.
    public func run(_ input: Tensor, into output: Tensor, threads: Int = Parallel.defaultThreads) throws {
        lock.lock()
        defer { lock.unlock() }
        let expected = try plan(for: input.shape).shapes[program.outputs[0]]
        guard output.shape == expected else {
            throw GraphError.shapeMismatch(node: outputNames[0], reason: "the output tensor has shape \(output.shape), the model writes \(expected)")
        }
        let result = try execute(input, threads: threads)
        output.data.update(from: result.data, count: result.count)
    }

    /// Floating-point operations of the convolutions `run` executes for an input of `shape` (a model's
    /// instance heads not included), by the explicit formula 2·N·Ho·Wo·Cout·(Cin/groups)·Kh·Kw
    /// (transposed: 2·N·H·W·Cin·Cout·Kh·Kw); other ops are not counted.
    public func convolutionFLOPs(forInput shape: TensorShape) throws -> Double {
        let shapes = try program.inferShapes(input: shape, limits: limits)
        return program.steps.indices.filter { program.neededForFirstOutput[$0] }.reduce(0) { total, index in
            let step = program.steps[index]
            switch step.kernel {
            case .conv(let conv):
                let p = conv.parameters
                let perOutput = Double((conv.inputChannels / p.groups) * p.kernelHeight * p.kernelWidth)
                return total + 2 * Double(shapes[step.output].count) * perOutput
            case .convTranspose(let conv):
                let perInput = Double(conv.outputChannels * conv.kernelHeight * conv.kernelWidth)
                return total + 2 * Double(shapes[step.inputs[0]].count) * perInput
            default:
                return total
            }
        }
    }

    /// Operations the executor runs per inference: the graph's nodes after activation fusion.
    public var operationCount: Int { program.steps.count }

    /// Tensors the executor has allocated for activations so far (grows only when an input size
    /// needs more memory than any earlier one).
    public var allocatedTensorCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return allocated
    }

    /// Float32 elements of activation memory planned for the last input size (0 before the first run).
    public var plannedElementCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return plan?.elementCount ?? 0
    }

    /// One operation's share of a profiled run.
    public struct OperationTiming: Sendable {
        /// The node's name in the graph.
        public let name: String
        /// What ran, e.g. `conv 3x3 d2 64→16`, `concat`, `resize_bilinear`.
        public let kind: String
        /// Output shape.
        public let shape: TensorShape
        /// Wall time of the operation in seconds.
        public let seconds: Double
        /// CPU time of the calling thread in seconds: with `threads: 1` all of the operation's work,
        /// without the time the thread spent preempted (steadier than `seconds` on a busy machine).
        public let callingThreadCPUSeconds: Double
    }

    /// Runs the model once like `run(_:threads:)`, timing every operation it runs (for benchmarks).
    public func profile(_ input: Tensor, threads: Int = Parallel.defaultThreads) throws -> [OperationTiming] {
        lock.lock()
        defer { lock.unlock() }
        var timings: [OperationTiming] = []
        _ = try execute(input, threads: threads) { index, seconds, cpuSeconds, shape in
            let step = self.program.steps[index]
            timings.append(OperationTiming(name: step.name, kind: step.kindDescription, shape: shape, seconds: seconds,
                                           callingThreadCPUSeconds: cpuSeconds))
        }
        return timings
    }

    /// Runs the steps the first output needs (`allOutputs`: every step) into the plan's buffers;
    /// returns the tensor holding the first output. Caller holds `lock`. `observe`, if given,
    /// receives each step's index, wall and calling-thread CPU seconds, and output shape.
    private func execute(_ input: Tensor, threads: Int, allOutputs: Bool = false,
                         observe: ((Int, Double, Double, TensorShape) -> Void)? = nil) throws -> Tensor {
        let plan = try self.plan(for: input.shape)
        plan.input.reshape(to: input.shape)
        plan.input.data.update(from: input.data, count: input.count)
        // One team for the whole run: the kernels' parallel parts go to helpers already running.
        Parallel.withTeam(threads: threads) { runSteps(plan: plan, threads: threads, allOutputs: allOutputs, observe: observe) }
        return plan.outputs[0]
    }

    /// Runs the steps in order into `plan`'s buffers (see `execute`).
    private func runSteps(plan: ExecutionPlan, threads: Int, allOutputs: Bool,
                          observe: ((Int, Double, Double, TensorShape) -> Void)?) {
        for (index, step) in program.steps.enumerated() where allOutputs || program.neededForFirstOutput[index] {
            let output = plan.stepOutputs[index]
            output.reshape(to: plan.shapes[step.output])
            if let observe {
                let start = DispatchTime.now().uptimeNanoseconds, startCPU = Self.callingThreadCPUSeconds()
                step.run(inputs: plan.stepInputs[index], output: output, threads: threads)
                observe(index, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9,
                        Self.callingThreadCPUSeconds() - startCPU, output.shape)
            } else {
                step.run(inputs: plan.stepInputs[index], output: output, threads: threads)
            }
        }
    }

    /// CPU seconds the calling thread has used.
    private static func callingThreadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The plan for `shape`, made (and cached) on first use. Caller holds `lock`.
    private func plan(for shape: TensorShape) throws -> ExecutionPlan {
        if let plan, plan.inputShape == shape { return plan }
        let fresh = try ExecutionPlan(program: program, inputShape: shape, limits: limits, reusing: plan?.slots ?? [])
        allocated += fresh.allocatedTensors
        plan = fresh
        return fresh
    }
}
