// swift-tools-version:6.0
// Lift: subject lifting (background removal) in pure Swift. See README.md and docs/.
import Foundation
import PackageDescription

/// Code generation for the hot loops. Without a CPU target Swift compiles for the x86-64 baseline
/// (SSE2: no fused multiply-add, 16 registers of 4 floats), so every target is built for a CPU with
/// AVX-512 or AVX2 FMA. `LIFT_CPU=native` (default) builds for this machine; `LIFT_CPU=x86-64-v4`
/// (portable AVX-512) or `LIFT_CPU=x86-64-v3` (AVX2 + FMA) build a binary that runs on other
/// machines of that level; `LIFT_CPU=baseline` sets no CPU flags, the build a package depending on
/// Lift by version gets (the kernels then multiply and add and use smaller register tiles).
let cpu = ProcessInfo.processInfo.environment["LIFT_CPU"] ?? "native"
/// The x86-64 levels (`x86-64-v3`, `x86-64-v4`) are clang `-march` names only (Swift's `-target-cpu`
/// refuses them, and `-Xcc -march` alone sets the Swift code's target too); named CPUs (`znver3`,
/// `skylake-avx512`, …) are both.
let cpuFlags: [String] = cpu == "native" ? ["-target-cpu", "native"] : cpu == "baseline" ? []
    : cpu.hasPrefix("x86-64") ? ["-Xcc", "-march=\(cpu)"] : ["-Xcc", "-march=\(cpu)", "-target-cpu", cpu]
/// This machine's CPU feature flags (x86 Linux), for `LIFT_CPU=native`.
let nativeFeatures: Set<Substring> = {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    return Set(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ") ?? [])
}()
let avx512CPUs = ["x86-64-v4", "skylake-avx512", "cascadelake", "cooperlake", "icelake-server", "icelake-client", "tigerlake",
                  "sapphirerapids", "emeraldrapids", "graniterapids", "znver4", "znver5"]
let fmaCPUs = avx512CPUs + ["x86-64-v3", "haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake", "arrowlake",
                            "lunarlake", "znver1", "znver2", "znver3", "bdver2", "bdver3", "bdver4"]
/// Whether that CPU has AVX-512, whose 32 registers of 16 floats the kernels' register tiles were
/// first sized for; without it (AVX2: 16 registers of 8 floats) `LIFT_AVX512` is not defined and the
/// kernels pick tiles a quarter the size, which would otherwise spill to the stack.
let avx512 = cpu == "native" ? nativeFeatures.contains("avx512f") : avx512CPUs.contains(cpu)
/// Whether that CPU has fused multiply-add (`LIFT_FMA`), which the kernels then use; without it they
/// multiply and add, because Swift compiles `addingProduct` for a CPU without FMA into a call of the
/// C library's `fmaf` per lane. (arm64 always has it; the kernels know that themselves.)
let fma = cpu == "native" ? nativeFeatures.contains("fma") : fmaCPUs.contains(cpu)
/// SwiftPM refuses a package that another one depends on by version (`from: "2.0.0"`) when its
/// targets carry unsafe flags, and `-target-cpu` is one. Such a dependency is a checkout SwiftPM
/// makes under `.build/checkouts/` (Xcode under `SourcePackages/checkouts/`): there the CPU flags
/// are left to the consumer, who passes them for the whole build (`swift build -c release -Xswiftc
/// -target-cpu -Xswiftc native -Xswiftc -DLIFT_FMA`, docs/library.md), and without them the kernels
/// take their baseline path (no `LIFT_FMA` or `LIFT_AVX512`, which Package.swift defines only beside
/// the CPU flags); as the root package, a path or a branch dependency, Lift sets them itself.
let isVersionedCheckout = ["/.build/checkouts/", "/SourcePackages/checkouts/"].contains { Context.packageDirectory.contains($0) }
let fast: [SwiftSetting] = isVersionedCheckout || cpuFlags.isEmpty ? []
    : [.unsafeFlags(cpuFlags)] + (avx512 ? [.define("LIFT_AVX512")] : []) + (fma ? [.define("LIFT_FMA")] : [])

var targets: [Target] = [
    .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
    .target(name: "LiftParallel", swiftSettings: fast),
    .target(name: "LiftImage", dependencies: ["CZlib", "LiftParallel"], exclude: ["README.md"], swiftSettings: fast),
    .target(name: "LiftTensor", dependencies: ["LiftParallel"], exclude: ["README.md"], swiftSettings: fast),
    .target(name: "LiftModel", dependencies: ["LiftTensor", "LiftImage"], exclude: ["README.md", "GRAPH-FORMAT.md", "ONNX/README.md"], swiftSettings: fast),
    .target(name: "LiftMask", dependencies: ["LiftImage", "LiftTensor"], exclude: ["README.md"], swiftSettings: fast),
    .target(name: "Lift", dependencies: ["LiftImage", "LiftTensor", "LiftModel", "LiftMask"], exclude: ["README.md"], swiftSettings: fast),
    .target(name: "LiftPipeline", dependencies: ["Lift"], exclude: ["README.md"], swiftSettings: fast),
    .target(name: "LiftServer", dependencies: ["Lift", "LiftPipeline"], exclude: ["README.md"],
            resources: [.embedInCode("Page/index.html"), .embedInCode("Page/openapi.json")], swiftSettings: fast),
    .target(name: "LiftCLI", dependencies: ["Lift", "LiftPipeline", "LiftServer"], exclude: ["README.md"], swiftSettings: fast),
    .executableTarget(name: "lift", dependencies: ["LiftCLI"], swiftSettings: fast),
    .executableTarget(name: "LiftBench", dependencies: ["Lift", "TestSupport"], path: "Benchmarks/LiftBench", swiftSettings: fast),
    .target(name: "TestSupport", dependencies: ["LiftImage", "LiftTensor"], path: "Tests/TestSupport", swiftSettings: fast),
    .testTarget(name: "LiftImageTests", dependencies: ["LiftImage", "TestSupport"], swiftSettings: fast),
    .testTarget(name: "LiftTensorTests", dependencies: ["LiftTensor", "TestSupport"], swiftSettings: fast),
    .testTarget(name: "LiftModelTests", dependencies: ["LiftModel", "TestSupport"], swiftSettings: fast),
    .testTarget(name: "LiftMaskTests", dependencies: ["LiftMask", "TestSupport"], swiftSettings: fast),
    .testTarget(name: "LiftTests", dependencies: ["Lift", "LiftPipeline", "LiftCLI", "TestSupport"], swiftSettings: fast),
    .testTarget(name: "LiftPipelineTests", dependencies: ["LiftPipeline", "Lift", "TestSupport"], swiftSettings: fast),
    .testTarget(name: "LiftServerTests", dependencies: ["LiftServer", "LiftPipeline", "Lift", "TestSupport"], swiftSettings: fast),
    // Runs the built `lift` binary; depending on the executable makes `swift test` build it first.
    .testTarget(name: "LiftCLITests", dependencies: ["lift", "Lift", "LiftPipeline", "LiftCLI", "TestSupport"], exclude: ["Snapshots"], swiftSettings: fast),
]

/// Fuzz targets (libFuzzer) are only declared when asked for, since they have no `main` and link only
/// with `--sanitize fuzzer`: `LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-png`.
var fuzzProducts: [Product] = []
if ProcessInfo.processInfo.environment["LIFT_FUZZ"] != nil {
    for (name, dependency) in [("FuzzPNG", "LiftImage"), ("FuzzJPEG", "LiftImage"), ("FuzzGIF", "LiftImage"), ("FuzzWebP", "LiftImage"),
                               ("FuzzWeights", "LiftModel"), ("FuzzONNX", "LiftModel"), ("FuzzHTTP", "LiftServer"), ("FuzzCLI", "LiftCLI")]
    where FileManager.default.fileExists(atPath: "Tests/Fuzz/\(name)") {
        targets.append(.executableTarget(name: name, dependencies: [.target(name: dependency)], path: "Tests/Fuzz/\(name)", swiftSettings: fast))
        fuzzProducts.append(.executable(name: name.replacingOccurrences(of: "Fuzz", with: "fuzz-").lowercased(), targets: [name]))
    }
}

let package = Package(
    name: "Lift",
    products: [
        .library(name: "Lift", targets: ["Lift"]),
        .executable(name: "lift", targets: ["lift"]),
        .executable(name: "lift-bench", targets: ["LiftBench"]),
    ] + fuzzProducts,
    targets: targets
)
