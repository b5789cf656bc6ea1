import Foundation

/// How much memory one photo may take, and how much a photo of a given size will take: checked from
/// the header (`DecodingLimits.maxMemoryBytes`, before any pixel memory is allocated), so a photo too
/// big for the machine is refused with a sentence instead of the process dying in an allocation.
public enum MemoryBudget {
    /// Peak bytes per photo pixel of a whole cut-out, an upper bound from the peak RSS measured with the
    /// shipped subject model (`Benchmarks/fullres.py`): 5–6 bytes per pixel over 12, 24 and 196 MP photos
    /// (the photo's 4, the alpha's 1; every other map is rendered row by row), every background,
    /// `--crop`, `--mask`, `--max-size`, `--labels`; 12 leaves room for the one whole-image path
    /// left, a label map of more than 255 subjects (4 + 2 bytes more), and a progressive JPEG's
    /// coefficients while it decodes.
    public static let bytesPerPixel = 12
    /// Bytes a run takes besides the photo: code, model weights and activations, thread stacks, the
    /// refinement grid's planes (a one-shot cut-out of a small photo peaks at ~145 MB with `balanced`,
    /// U²-Net-small's 192² pass included, and ~310 MB with `accurate`, whose passes are larger).
    public static let fixedBytes = 320 << 20

    /// The peak memory Lift expects for decoding and cutting out a `width × height` photo, in bytes
    /// (saturating instead of overflowing).
    public static func estimate(width: Int, height: Int) -> Int {
        let (pixels, overflow) = max(0, width).multipliedReportingOverflow(by: max(0, height))
        let (planes, overflow2) = pixels.multipliedReportingOverflow(by: bytesPerPixel)
        return overflow || overflow2 ? Int.max : planes.addingReportingOverflow(fixedBytes).overflow ? Int.max : planes + fixedBytes
    }

    /// The most memory this process may use, in bytes, with what sets it: the smallest of the
    /// machine's physical memory, its control group's limit (`memory.max`) and the process's
    /// `ulimit -v` / `ulimit -d`. Read once.
    public static let machine: (bytes: Int, source: String) = {
        var limits: [(Int, String)] = []
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        if pages > 0, pageSize > 0 { limits.append((pages * pageSize, "physical memory")) }
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
               let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0 {
                limits.append((value, "the container's memory limit"))
                break
            }
        }
        for (resource, name) in [(RLIMIT_AS, "ulimit -v"), (RLIMIT_DATA, "ulimit -d")] {
            var limit = rlimit()
            // RLIM_INFINITY is all ones, beyond `Int.max`.
            if getrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0, limit.rlim_cur < UInt64(Int.max) {
                limits.append((Int(limit.rlim_cur), name))
            }
        }
        return limits.min { $0.0 < $1.0 }.map { (bytes: $0.0, source: $0.1) } ?? (bytes: Int.max, source: "no limit found")
    }()

    /// The sentence for a `width × height` image whose `estimate` is over `budget` bytes.
    public static func refusal(width: Int, height: Int, estimate: Int, budget: Int) -> String {
        let source = budget == machine.bytes ? " (\(machine.source))" : ""
        return "a \(width)×\(height) image needs about \(size(estimate)) to cut out, more than the memory budget of "
            + "\(size(budget))\(source); scale it down, or raise the budget (--max-memory) if the machine has the memory"
    }

    /// `1.5 GB`, `420 MB`: decimal units, as `--max-memory` takes them.
    public static func size(_ bytes: Int) -> String {
        if bytes >= 1_000_000_000 { return String(format: "%.1f GB", Double(bytes) / 1e9) }
        return "\(Int((Double(bytes) / 1e6).rounded())) MB"
    }

    /// Reads a size such as `512MB`, `8MB`, `2GB`, `1.5G`, `800KB` or a plain number of bytes
    /// (decimal units; `KiB`/`MiB`/`GiB` binary), or nil when `text` is not one.
    public static func parseSize(_ text: String) -> Int? {
        let units: [(String, Double)] = [("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("TiB", 1_099_511_627_776),
                                         ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12),
                                         ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("B", 1)]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let unit = units.first { trimmed.uppercased().hasSuffix($0.0.uppercased()) && trimmed.count > $0.0.count }
        let number = unit.map { String(trimmed.dropLast($0.0.count)).trimmingCharacters(in: .whitespaces) } ?? trimmed
        guard let value = Double(number), value.isFinite, value >= 0, number.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        let bytes = value * (unit?.1 ?? 1)
        return bytes < 9e18 ? Int(bytes) : nil
    }
}
