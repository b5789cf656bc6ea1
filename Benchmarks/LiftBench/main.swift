// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench ...`).
import Foundation
import Lift

let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "png": runPNGBench(Array(benchArguments.dropFirst()))
default: print("usage: lift-bench png DIR [REPEATS]")
}
