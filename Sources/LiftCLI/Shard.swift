/// One of `count` parts of a batch (`--shard K/N`, `index` 1…N): each input belongs to exactly one
/// part, picked by a 64-bit FNV-1a hash of its canonical path (absolute, normalised, symbolic links
/// resolved where they exist), so every spelling of a path, every rerun and every retry of a shard
/// gets the same files, on any machine that sees the files at the same place.
public struct Shard: Sendable, Equatable {
    /// Which part, 1…`count`.
    public let index: Int
    /// How many parts.
    public let count: Int

    /// Part `index` of `count`; nil unless 1 ≤ `index` ≤ `count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, (1 ... count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// The part (1…`count`) that the input with canonical path `canonicalPath` belongs to.
    public static func part(of canonicalPath: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalPath.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(count)) + 1
    }

    /// Whether the input with canonical path `canonicalPath` is in this part.
    public func contains(_ canonicalPath: String) -> Bool { Self.part(of: canonicalPath, count: count) == index }
}
