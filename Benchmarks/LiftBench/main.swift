// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench SUBCOMMAND ...`).
import Foundation
import Lift

let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "kernels": runKernelBench(arguments: Array(benchArguments.dropFirst()))
case "model": runModelBench(Array(benchArguments.dropFirst()))
default:
    print("usage: lift-bench kernels [--json] [--filter NAME] [--buffers N]")
    print("       lift-bench model [--size 320] [--runs 5] [--rounds 3] [--threads 1,2] [--profile]")
    exit(2)
}
