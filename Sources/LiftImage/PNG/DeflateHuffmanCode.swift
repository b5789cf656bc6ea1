/// A canonical, length-limited Huffman code for one deflate alphabet (RFC 1951 §3.2.2): each symbol's
/// code length and its code, bit-reversed for deflate's least-significant-bit-first order.
///
/// Lengths come from an optimal Huffman tree over the symbol frequencies; a tree deeper than the limit
/// (deflate allows 15 bits, 7 for the code-length code) is flattened the way miniz does it (the overflowing leaves moved up, a shorter leaf split per step), which keeps the code
/// complete: the lengths satisfy Kraft's sum Σ 2^-length = 1 exactly. inflate requires a complete
/// code-length code, so at least two symbols always get a code. (Package access: the tests check
/// those properties directly.)
package struct DeflateHuffmanCode {
    /// Code length in bits per symbol (0 = no code), each at most the limit.
    package let lengths: [UInt8]
    /// Each symbol's code with its bits reversed (the code's first bit in bit 0), as the bit writer
    /// emits it; 0 for symbols without a code.
    let codes: [UInt16]

    /// The optimal code with lengths ≤ `limit` for `frequencies` (one count per symbol, indexed by
    /// symbol). Symbols with frequency 0 get no code, except that when fewer than two symbols occur
    /// the lowest-numbered unused symbols get one too, so the code is complete.
    /// - Parameters:
    ///   - frequencies: occurrences of each symbol; at most 2^limit symbols.
    ///   - limit: the longest code allowed, 1…15 bits.
    package init(frequencies: [Int], limit: Int) {
        precondition((1...15).contains(limit) && frequencies.count >= 2 && frequencies.count <= 1 << limit,
                     "deflate alphabets have 2…2^limit symbols and codes of 1…15 bits")
        // Used symbols, least frequent first (ties by symbol, so the code depends only on the counts).
        var used = frequencies.indices.filter { frequencies[$0] > 0 }
        for symbol in frequencies.indices where used.count < 2 && !used.contains(symbol) { used.append(symbol) }
        used.sort { (frequencies[$0], $0) < (frequencies[$1], $1) }
        let depths = Self.treeDepths(weights: used.map { max(frequencies[$0], 1) })
        // Codes per length, the lengths past the limit folded onto it, then rebalanced.
        var perLength = [Int](repeating: 0, count: limit + 1)
        for depth in depths { perLength[min(depth, limit)] += 1 }
        var kraft = 0
        for length in 1...limit { kraft += perLength[length] << (limit - length) }
        while kraft > 1 << limit {
            // Drop one code at the limit, split a shorter leaf into two one level down: Kraft's sum
            // (in units of 2^-limit) falls by exactly one.
            perLength[limit] -= 1
            if let split = (1..<limit).reversed().first(where: { perLength[$0] > 0 }) {
                perLength[split] -= 1
                perLength[split + 1] += 2
            }
            kraft -= 1
        }
        // The longest codes go to the least frequent symbols.
        var lengths = [UInt8](repeating: 0, count: frequencies.count)
        var next = 0
        for length in stride(from: limit, through: 1, by: -1) {
            for _ in 0..<perLength[length] {
                lengths[used[next]] = UInt8(length)
                next += 1
            }
        }
        self.init(lengths: lengths)
    }

    /// The canonical code (RFC 1951 §3.2.2) for code lengths `lengths` (0 = no code, at most 15).
    init(lengths: [UInt8]) {
        var perLength = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { perLength[Int(length)] += 1 }
        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            code = (code + perLength[length - 1]) << 1
            nextCode[length] = code
        }
        var codes = [UInt16](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let value = nextCode[Int(length)]
            nextCode[Int(length)] += 1
            var reversed = 0
            for bit in 0..<Int(length) { reversed |= (value >> bit & 1) << (Int(length) - 1 - bit) }
            codes[symbol] = UInt16(reversed)
        }
        self.lengths = lengths
        self.codes = codes
    }

    /// Bits that `frequencies` cost in this code (Σ frequency × length).
    func cost(of frequencies: [Int]) -> Int {
        var bits = 0
        for (symbol, count) in frequencies.enumerated() { bits += count * Int(lengths[symbol]) }
        return bits
    }

    /// The depth of each leaf of a Huffman tree over `weights` (sorted ascending, at least two), by
    /// the two-queue method: leaves and merged nodes are both taken in increasing weight order.
    private static func treeDepths(weights: [Int]) -> [Int] {
        let leaves = weights.count
        // Nodes 0..<leaves are the leaves, then the merged nodes in the order they are made.
        var weight = weights + [Int](repeating: 0, count: leaves - 1)
        var parent = [Int](repeating: 0, count: 2 * leaves - 1)
        var nextLeaf = 0, nextMerged = leaves
        for merged in leaves..<(2 * leaves - 1) {
            var children = (0, 0)
            for k in 0..<2 {
                let takeLeaf = nextLeaf < leaves && (nextMerged == merged || weight[nextLeaf] <= weight[nextMerged])
                let child = takeLeaf ? nextLeaf : nextMerged
                if takeLeaf { nextLeaf += 1 } else { nextMerged += 1 }
                if k == 0 { children.0 = child } else { children.1 = child }
            }
            weight[merged] = weight[children.0] + weight[children.1]
            parent[children.0] = merged
            parent[children.1] = merged
        }
        // Parents are made after their children, so one pass from the root down gives every depth.
        var depth = [Int](repeating: 0, count: 2 * leaves - 1)
        for node in stride(from: 2 * leaves - 3, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }
        return Array(depth[0..<leaves])
    }
}
