// swift-tools-version:6.0
// A package that uses Lift the way another project would: by version, from a git URL. Made into a
// scratch directory and built by `Tests/Consumer/run.sh` (which also writes `ReadmeExample` from the
// README's code block); `LIFT_PACKAGE_URL` is the tagged clone to depend on.
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [.package(url: Context.environment["LIFT_PACKAGE_URL"] ?? "https://example.invalid/Lift.git", from: "2.0.0")],
    targets: [
        .executableTarget(name: "ReadmeExample", dependencies: [.product(name: "Lift", package: "Lift")]),
        .executableTarget(name: "TimedCutout", dependencies: [.product(name: "Lift", package: "Lift")]),
    ]
)
