import Foundation
import LiftCLI
import Testing

/// `--shard K/N`: a partition of the inputs by a stable hash of each canonical path.
@Suite struct ShardTests {
    @Test func theShardsPartitionTheInputsExactlyAndEvenly() {
        let paths = (0 ..< 2000).map { "/data/listing-\($0 / 100)/photo-\($0).jpg" }
        for count in 1 ... 8 {
            let shards = (1 ... count).map { Shard(index: $0, count: count)! }
            for path in paths { #expect(shards.filter { $0.contains(path) }.count == 1, "\(path) in \(count) shards") }
            let sizes = shards.map { shard in paths.count { shard.contains($0) } }
            #expect(sizes.reduce(0, +) == paths.count)
            #expect(sizes.allSatisfy { abs($0 - paths.count / count) < paths.count / count / 5 + 20 }, "uneven: \(sizes)")
        }
    }

    @Test func thePartOfAPathNeverChanges() {
        // FNV-1a 64 of the UTF-8 path, fixed here so that a change of hash (which would move files
        // between the shards of a job already running) cannot go unnoticed.
        #expect(Shard.part(of: "/data/a.jpg", count: 1_000_003) == 1 + Int(fnv1a("/data/a.jpg") % 1_000_003))
        #expect(fnv1a("") == 0xcbf2_9ce4_8422_2325)
        #expect(fnv1a("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(fnv1a("foobar") == 0x8594_4171_f739_67e8)
    }

    @Test func onlyWholeNumbersFromOneToNAreShards() {
        #expect(Shard(parsing: "2/8") == Shard(index: 2, count: 8))
        for text in ["0/3", "4/3", "1/0", "-1/2", "1", "1/2/3", "a/b", "", "1/"] { #expect(Shard(parsing: text) == nil, "\(text)") }
    }

    /// FNV-1a 64, written out independently of `Shard` (the test vectors above are the published ones).
    private func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
