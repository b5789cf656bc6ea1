// The one rule for how much work a kernel hands to another thread. Two regimes:
// - outside a team, every split is one `DispatchQueue.concurrentPerform`: waking a worker and
//   waiting for it costs tens of microseconds here, so a part must hold a lot of work;
// - inside `Parallel.withTeam` (a `Model` run), the helper is already running and polling for the
//   next job, so a part costs little more than the second core's cold caches.
// Every LiftTensor kernel sizes its `Parallel.forEach` parts with these figures, so one measurement
// tunes them all.

/// Smallest amount of work worth a parallel part of its own, in FLOPs (compute-bound kernels) or in
/// bytes read plus written (memory-bound kernels).
public enum WorkGate {
    /// FLOPs a part must hold outside a team: 2^21 ≈ 2.1 M, about 20 µs of a convolution at 100
    /// GFLOP/s. Measured on the subject model (2 cores, training paused): the network's 2-thread time
    /// is flat for 2^20–2^22 and worse at 2^18 and 2^23; a 1×1 conv of 4.3 M FLOPs split in two ran
    /// 1.04× faster, one of 2.1 M FLOPs split in two 20 % slower (the second core's wake-up and its
    /// cold caches cost about as much as ~20 µs of work).
    public static let flopsPerPart = 1 << 21
    /// Bytes (read + written) a part must move outside a team: 2^20 = 1 MiB, 20–40 µs of an
    /// element-wise op here; the network's time was flat for 2^19–2^21 and worse at 2^22.
    public static let bytesPerPart = 1 << 20
    /// FLOPs a part must hold inside a team: 2^17 ≈ 131 k, 1–2 µs of a convolution. The subject
    /// model's 2-thread time (training paused) was flat for 2^15–2^18 and 5–10 % worse at 2^21.
    public static let teamFlopsPerPart = 1 << 17
    /// Bytes a part must move inside a team: 2^17 = 128 KiB. Flat for 2^16–2^18 on the subject and
    /// person models; below that, a 4 µs element-wise op split in two ran slower (the helper reads
    /// data that sits in the other core's cache).
    public static let teamBytesPerPart = 1 << 17

    /// When true in the current task, every kernel splits its work into as many parts as it has
    /// threads and items, whatever the size: tests use it to check on small shapes that results are
    /// bit-identical for any split (`WorkGate.$splitsAnyWork.withValue(true) { … }`).
    @TaskLocal public static var splitsAnyWork = false

    /// The `minimumPerPart` for items of `flopsPerItem` FLOPs each (team figure inside a team).
    @inline(__always)
    public static func minimumItems(flopsPerItem: Int) -> Int {
        splitsAnyWork ? 1 : max(1, (Parallel.isInTeam ? teamFlopsPerPart : flopsPerPart) / max(flopsPerItem, 1))
    }

    /// Parallel parts for `items` items of `flopsPerItem` FLOPs each on `threads` threads: as many as
    /// `Parallel.forEach` makes with `minimumItems(flopsPerItem:)`, for kernels that shape their
    /// work items to the part count (at least 1).
    @inline(__always)
    public static func parts(threads: Int, items: Int, flopsPerItem: Int) -> Int {
        Parallel.partCount(count: items, threads: threads, minimumPerPart: minimumItems(flopsPerItem: flopsPerItem))
    }

    /// The `minimumPerPart` for items that read and write `bytesPerItem` bytes each (team figure
    /// inside a team).
    @inline(__always)
    public static func minimumItems(bytesPerItem: Int) -> Int {
        splitsAnyWork ? 1 : max(1, (Parallel.isInTeam ? teamBytesPerPart : bytesPerPart) / max(bytesPerItem, 1))
    }
}
