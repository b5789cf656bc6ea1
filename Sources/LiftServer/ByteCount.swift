/// Sizes in bytes as people write them.
enum ByteCount {
    /// `8 MB`, `512 KB`, `100 bytes`: the largest decimal unit that divides `bytes` whole, else bytes.
    static func text(_ bytes: Int) -> String {
        for (unit, size) in [("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000)] where bytes >= size && bytes % size == 0 {
            return "\(bytes / size) \(unit)"
        }
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= size && bytes % size == 0 {
            return "\(bytes / size) \(unit)"
        }
        return "\(bytes) bytes"
    }
}
