import LiftTensor

/// Where every value of one graph run lives, for one input shape.
///
/// Values are assigned to a small set of reusable buffers ("slots") by liveness (`SlotAllocator`): a
/// value takes a slot when it is written (the graph input before the first step) and frees it after
/// its last reader, so values whose lifetimes do not overlap share memory. The slot tensors and each step's list of
/// input tensors are made once per plan (reusing a previous plan's tensors where large enough), so
/// running again at the same input size allocates no buffers.
struct ExecutionPlan {
    /// The input shape this plan was made for.
    let inputShape: TensorShape
    /// Shape of every value by id (values no step writes are empty).
    let shapes: [TensorShape]
    /// The tensor holding the graph input (the caller's input is copied here).
    let input: Tensor
    /// Per step: the tensors it reads, in order.
    let stepInputs: [[Tensor]]
    /// Per step: the tensor it writes.
    let stepOutputs: [Tensor]
    /// The tensors holding the graph outputs, in `Program.outputs` order.
    let outputs: [Tensor]
    /// Every slot tensor (for reuse by the next plan).
    let slots: [Tensor]
    /// How many tensors this plan had to allocate (0 when every slot was reused).
    let allocatedTensors: Int

    /// Plans `program` for `inputShape`, taking tensors from `previous` where their capacity suffices.
    init(program: Program, inputShape: TensorShape, limits: WeightLimits, reusing previous: [Tensor] = []) throws {
        let shapes = try program.inferShapes(input: inputShape, limits: limits)
        var lastRead = [Int](repeating: -1, count: shapes.count)
        for (index, step) in program.steps.enumerated() { for value in step.inputs { lastRead[value] = index } }
        for value in program.outputs { lastRead[value] = Int.max }

        var slotOfValue = [Int](repeating: -1, count: shapes.count)
        var allocator = SlotAllocator()
        slotOfValue[0] = allocator.take(size: shapes[0].count)
        for (index, step) in program.steps.enumerated() {
            slotOfValue[step.output] = allocator.take(size: shapes[step.output].count)
            // Values die after their last reader; a value nothing reads dies at once.
            for value in Set(step.inputs + [step.output]) where lastRead[value] <= index {
                allocator.release(slotOfValue[value])
            }
        }
        let capacities = allocator.capacities

        // Every slot lives for the whole run: their sum, not the largest tensor, is the memory taken.
        var total = 0
        for capacity in capacities {
            let (sum, overflow) = total.addingReportingOverflow(capacity)
            guard !overflow, sum <= limits.maxPlannedElements else {
                throw GraphError.activationsTooLarge(input: inputShape.description, elements: overflow ? .max : sum,
                                                     limit: limits.maxPlannedElements)
            }
            total = sum
        }
        // Each slot takes the smallest earlier tensor that is large enough, else a new one.
        var pool = BestFitPool<Tensor>()
        for tensor in previous { pool.insert(tensor, capacity: tensor.capacity) }
        var allocated = 0
        let slots = capacities.map { capacity -> Tensor in
            if let reuse = pool.removeSmallest(atLeast: capacity) { return reuse.item }
            allocated += 1
            return Tensor(shape: TensorShape(n: 1, h: 1, w: 1, c: capacity))
        }
        self.inputShape = inputShape
        self.shapes = shapes
        self.slots = slots
        input = slots[slotOfValue[0]]
        stepInputs = program.steps.map { step in step.inputs.map { slots[slotOfValue[$0]] } }
        stepOutputs = program.steps.map { slots[slotOfValue[$0.output]] }
        outputs = program.outputs.map { slots[slotOfValue[$0]] }
        allocatedTensors = allocated
    }

    /// Total Float32 elements held by the slots (the plan's activation memory).
    var elementCount: Int { slots.reduce(0) { $0 + $1.capacity } }
}
