// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench ...`).
import Foundation
import Lift

let benchArguments = Array(CommandLine.arguments.dropFirst())
let rest = Array(benchArguments.dropFirst())
switch benchArguments.first {
case "png": runPNGBench(rest)
case "jpeg": runJPEGBench(rest)
default:
    print("usage: lift-bench png|jpeg ARGS…")
    exit(2)
}
