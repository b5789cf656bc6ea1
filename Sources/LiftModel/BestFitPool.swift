/// Items kept sorted by capacity, equal capacities in insertion order, so that best-fit picks take
/// a binary search instead of a scan (`SlotAllocator`, and `ExecutionPlan` reusing tensors).
struct BestFitPool<Item> {
    private var entries: [(capacity: Int, item: Item)] = []

    /// Whether the pool holds no item.
    var isEmpty: Bool { entries.isEmpty }

    /// Adds `item` after every item of the same capacity.
    mutating func insert(_ item: Item, capacity: Int) {
        entries.insert((capacity, item), at: firstIndex { $0 > capacity })
    }

    /// Removes and returns the smallest item of at least `need` (the earliest added among equals).
    mutating func removeSmallest(atLeast need: Int) -> (capacity: Int, item: Item)? {
        let index = firstIndex { $0 >= need }
        return index < entries.count ? entries.remove(at: index) : nil
    }

    /// Removes and returns the largest item (the earliest added among equals).
    mutating func removeLargest() -> (capacity: Int, item: Item)? {
        guard let largest = entries.last?.capacity else { return nil }
        return entries.remove(at: firstIndex { $0 >= largest })
    }

    /// The first index whose capacity satisfies `isAbove`, which must be false then true along the
    /// sorted entries (`entries.count` when none does).
    private func firstIndex(where isAbove: (Int) -> Bool) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if isAbove(entries[middle].capacity) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension BestFitPool: Sendable where Item: Sendable {}
