// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench SUBCOMMAND ...`).
import Foundation
import Lift

let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "model": runModelBench(Array(benchArguments.dropFirst()))
case "png": runPNGBench(Array(benchArguments.dropFirst()))
case "mask": runMaskBench(Array(benchArguments.dropFirst()))
case "mask-quality": runMaskQuality(Array(benchArguments.dropFirst()))
case "pipeline": runPipelineBench(Array(benchArguments.dropFirst()))
default:
    print("usage: lift-bench model [--size 320] [--runs 10] [--threads 1,2]")
    print("       lift-bench png DIR [REPEATS]")
    print("       lift-bench mask [...] | lift-bench mask-quality [...]")
    print("       lift-bench pipeline FILE... [--model subject|person] [--threads 1,2] [--repeat N]")
    exit(2)
}
