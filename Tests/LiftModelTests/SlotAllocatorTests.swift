import LiftModel
import TestSupport
import Testing

/// The planner's first allocator, a linear scan over the free slots: the reference `SlotAllocator`
/// must match slot for slot.
private struct LinearSlotAllocator {
    var capacities: [Int] = []
    var free: [Int] = []

    mutating func take(size: Int) -> Int {
        let need = max(size, 1)
        let fitting = free.indices.filter { capacities[free[$0]] >= need }
        let pick = fitting.min { capacities[free[$0]] < capacities[free[$1]] }
            ?? free.indices.max { capacities[free[$0]] < capacities[free[$1]] }
        guard let pick else {
            capacities.append(need)
            return capacities.count - 1
        }
        let slot = free.remove(at: pick)
        capacities[slot] = max(capacities[slot], need)
        return slot
    }

    mutating func release(_ slot: Int) { free.append(slot) }
}

@Test func slotAllocatorPicksBestFitThenGrowsTheLargest() {
    var allocator = SlotAllocator()
    let a = allocator.take(size: 100), b = allocator.take(size: 40), c = allocator.take(size: 70)
    #expect([a, b, c] == [0, 1, 2])
    allocator.release(a)
    allocator.release(b)
    allocator.release(c)
    #expect(allocator.take(size: 50) == c)  // 70 is the smallest free slot that holds 50
    #expect(allocator.take(size: 0) == b)  // 40 is the smallest; an empty value still takes a slot
    #expect(allocator.take(size: 300) == a)  // only the 100 is free and too small: it grows
    #expect(allocator.take(size: 10) == 3)  // nothing is free: a new slot
    #expect(allocator.capacities == [300, 40, 70, 10])
}

@Test func slotAllocatorTiesGoToTheSlotFreedFirst() {
    var allocator = SlotAllocator()
    let slots = (0..<4).map { _ in allocator.take(size: 8) }
    for slot in [2, 0, 3, 1] { allocator.release(slots[slot]) }
    #expect((0..<4).map { _ in allocator.take(size: 8) } == [2, 0, 3, 1])
}

@Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
func slotAllocatorMatchesTheLinearScan(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    var allocator = SlotAllocator()
    var reference = LinearSlotAllocator()
    var live: [Int] = []
    for _ in 0..<4000 {
        // Sizes from a few repeated values (ties) and a wide range; single releases and, now and
        // then, half of the live values at once (a long free list).
        let roll = Int.random(in: 0..<100, using: &random)
        if live.isEmpty || roll < 60 {
            let size = Bool.random(using: &random) ? [0, 16, 64, 64, 256][Int.random(in: 0..<5, using: &random)]
                                                     : Int.random(in: 1...100_000, using: &random)
            let slot = allocator.take(size: size)
            #expect(slot == reference.take(size: size))
            live.append(slot)
        } else {
            for _ in 0..<(roll < 97 ? Int.random(in: 1...min(live.count, 2), using: &random) : live.count / 2) {
                let slot = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                allocator.release(slot)
                reference.release(slot)
            }
        }
    }
    #expect(allocator.capacities == reference.capacities)
    #expect(allocator.capacities.count > 20)  // the walk kept over 20 values alive at once
}
