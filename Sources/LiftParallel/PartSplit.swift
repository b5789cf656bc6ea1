/// ggml's ceil-div split of `0..<count` into contiguous parts of `perPart` items (the last one
/// shorter, trailing ones possibly empty): the one "part → range" rule shared by
/// `Parallel.forEach`'s `concurrentPerform` branch and the team's jobs.
struct PartSplit {
    /// Items in all parts together.
    let count: Int
    /// Parts (the trailing ones may be empty when `count` is small).
    let parts: Int
    /// Items in every part but the last (non-empty) one.
    let perPart: Int

    /// Splits `0..<count` into `parts` (≥ 1) ranges.
    init(count: Int, parts: Int) {
        precondition(parts >= 1, "a split has at least one part, not \(parts)")
        self.count = count
        self.parts = parts
        perPart = (count + parts - 1) / parts
    }

    /// Runs `body` on part `part`'s range, if that range is not empty.
    @inline(__always)
    func run(part: Int, _ body: (Range<Int>) -> Void) {
        let start = part * perPart, end = min(start + perPart, count)
        if start < end { body(start ..< end) }
    }
}
