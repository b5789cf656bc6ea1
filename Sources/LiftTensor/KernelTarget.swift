/// The instruction set this build's kernels were compiled for, as `registerVectors` and
/// `multiplyAdd` (`SIMDSupport.swift`) see it: `LIFT_AVX512` and `LIFT_FMA` are defined by
/// Package.swift beside the CPU flags it sets, or passed by a package that depends on Lift by version
/// with its own (`-Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLIFT_FMA`).
public enum KernelTarget: String, Sendable {
    /// AVX-512: 32 registers of 16 floats, fused multiply-add.
    case avx512
    /// Fused multiply-add with 16 registers of 8 floats (AVX2), or arm64's NEON.
    case fma
    /// The x86-64 baseline (SSE2): no fused multiply-add, 16 registers of 4 floats; what a build
    /// without CPU flags gets, such as a package depending on Lift by version that passes none.
    /// Its kernels run slower than in a build for the machine's CPU (docs/library.md has figures).
    case baseline

    /// This build's target.
    public static var current: KernelTarget {
#if LIFT_AVX512
        .avx512
#elseif LIFT_FMA || arch(arm64)
        .fma
#else
        .baseline
#endif
    }
}
