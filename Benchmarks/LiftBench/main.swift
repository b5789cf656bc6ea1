// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench ...`).
import Foundation
import Lift

let benchArguments = Array(CommandLine.arguments.dropFirst())
let rest = Array(benchArguments.dropFirst())
switch benchArguments.first {
case "png": runPNGBench(rest)
case "jpeg": runJPEGBench(rest)
case "mask": runMaskBench(rest)
case "mask-quality": runMaskQuality(rest)
default:
    print("usage: lift-bench png|jpeg|mask|mask-quality ARGS…")
    exit(2)
}
