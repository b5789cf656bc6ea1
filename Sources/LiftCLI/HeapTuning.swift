import Glibc

/// Tunes glibc's heap for a process whose big allocations are photo planes and model weights, once,
/// before anything else runs (measurements in `Benchmarks/RESULTS.md`, "One-shot `lift` runs").
public enum HeapTuning {
    /// Applies both tunings below.
    public static func apply() {
        keepBuffersInHeap()
        adviseHugePages(bytes: 256 << 20)
    }

    /// Photo-sized buffers (48 MB for a 12 MP RGBA image) come from the heap and are reused from
    /// image to image instead of being mmap'ed fresh and page-faulted in each time: a 6 MP cut-out
    /// spends half the system time (0.16 → 0.07–0.09 s) and the whole run ~10 % less wall time; peak
    /// RSS grows ~5 %. (glibc's `mallopt`; `<malloc.h>` is not part of Swift's Glibc module, so it is
    /// declared below with the parameter numbers from that header: M_TRIM_THRESHOLD = -1,
    /// M_MMAP_THRESHOLD = -3.)
    private static func keepBuffersInHeap() {
        _ = mallopt(-3, 1 << 30)
        _ = mallopt(-1, 1 << 30)
    }

    /// Caps glibc's malloc arenas at `count` (`M_ARENA_MAX` = -8). A server serves each connection on
    /// its own thread, and glibc gives threads their own arenas (up to 8 per core): each arena would
    /// keep the freed planes of the largest photo its thread processed, so RSS would grow with the
    /// number of connections that ever processed a photo. With one arena per worker, freed planes are
    /// reused by whichever thread processes next.
    static func limitArenas(_ count: Int) {
        _ = mallopt(-8, Int32(clamping: max(1, count)))
    }

    /// Grows the heap by `bytes` of untouched address space, marks it `MADV_HUGEPAGE` and gives it
    /// back to malloc, so the buffers carved from it later fault in 2 MiB pages instead of 4 KiB ones
    /// (what glibc's `glibc.malloc.hugetlb=1` tunable does, which only the environment can set).
    /// Most of a one-shot run's fresh memory is touched once (packed weights, activations, photo
    /// planes), and on a VM each 4 KiB fault cost ~3 µs: 26,000 of them were a sixth of a 0.5 MP
    /// run's CPU time. Nothing is touched here, so RSS does not grow; where the kernel's transparent
    /// huge pages are off (`never`) the advice is ignored, and if the heap cannot grow, nothing is done.
    private static func adviseHugePages(bytes: Int) {
        guard let block = malloc(bytes) else { return }
        let hugePage = 2 << 20, page = 4096
        let start = (Int(bitPattern: block) + hugePage - 1) & ~(hugePage - 1)
        let end = (Int(bitPattern: block) + bytes) & ~(page - 1)
        if end > start, let first = UnsafeMutableRawPointer(bitPattern: start) {
            _ = madvise(first, end - start, MADV_HUGEPAGE)
        }
        free(block)
    }
}

@_silgen_name("mallopt") private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
