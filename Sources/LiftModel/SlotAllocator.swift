/// Packs values into reusable buffers ("slots") by liveness, as `ExecutionPlan` does for a graph run.
///
/// `take` gives a value the smallest free slot at least as large as it needs, else grows the largest
/// free slot, else opens a new one; `release` frees a slot after its value's last reader. Ties go to
/// the slot freed first. Each call costs a binary search and at most one array shift, so planning a
/// graph of n values is O(n log n) searches however many values are alive at once.
public struct SlotAllocator: Sendable {
    /// Capacity of every slot so far, in elements, by slot index.
    public private(set) var capacities: [Int] = []
    private var free = BestFitPool<Int>()
    private var isFree: [Bool] = []

    /// An allocator with no slots.
    public init() {}

    /// A slot for a value of `size` elements (at least 1 is reserved); the slot's capacity grows to
    /// `size` if it was smaller.
    public mutating func take(size: Int) -> Int {
        let need = max(size, 1)
        if let pick = free.removeSmallest(atLeast: need) ?? free.removeLargest() {
            capacities[pick.item] = max(pick.capacity, need)
            isFree[pick.item] = false
            return pick.item
        }
        capacities.append(need)
        isFree.append(false)
        return capacities.count - 1
    }

    /// Frees `slot` for later values. A slot is released at most once per `take`.
    public mutating func release(_ slot: Int) {
        precondition(!isFree[slot], "slot \(slot) released twice")
        isFree[slot] = true
        free.insert(slot, capacity: capacities[slot])
    }
}
