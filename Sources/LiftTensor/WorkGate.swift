// The one rule for how much work a kernel hands to another thread. Waking a worker of
// `DispatchQueue.concurrentPerform` and waiting for it costs tens of microseconds here; a part that
// holds less work than that runs faster on the calling thread. Every LiftTensor kernel sizes its
// `Parallel.forEach` parts with these two figures, so one measurement tunes them all.


/// Smallest amount of work worth a parallel part of its own, in FLOPs (compute-bound kernels) or in
/// bytes read plus written (memory-bound kernels).
public enum WorkGate {
    /// FLOPs a part must hold: 2^21 ≈ 2.1 M, about 20 µs of a convolution at 100 GFLOP/s. Measured
    /// on the subject model (2 cores, training paused): the network's 2-thread time is flat for
    /// 2^20–2^22 and worse at 2^18 and 2^23; a 1×1 conv of 4.3 M FLOPs split in two ran 1.04×
    /// faster, one of 2.1 M FLOPs split in two 20 % slower (the second core's wake-up and its cold
    /// caches cost about as much as ~20 µs of work).
    public static let flopsPerPart = 1 << 21
    /// Bytes (read + written) a part must move: 2^20 = 1 MiB, 20–40 µs of an element-wise op here;
    /// the network's time was flat for 2^19–2^21 and worse at 2^22.
    public static let bytesPerPart = 1 << 20

    /// When true in the current task, every kernel splits its work into as many parts as it has
    /// threads and items, whatever the size: tests use it to check on small shapes that results are
    /// bit-identical for any split (`WorkGate.$splitsAnyWork.withValue(true) { … }`).
    @TaskLocal public static var splitsAnyWork = false

    /// The `minimumPerPart` for items of `flopsPerItem` FLOPs each.
    @inline(__always)
    public static func minimumItems(flopsPerItem: Int) -> Int {
        splitsAnyWork ? 1 : max(1, flopsPerPart / max(flopsPerItem, 1))
    }

    /// The `minimumPerPart` for items that read and write `bytesPerItem` bytes each.
    @inline(__always)
    public static func minimumItems(bytesPerItem: Int) -> Int {
        splitsAnyWork ? 1 : max(1, bytesPerPart / max(bytesPerItem, 1))
    }
}
