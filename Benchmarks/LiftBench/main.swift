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
case "person": try runPersonBench(Array(benchArguments.dropFirst()))
case "kernels": runKernelBench(arguments: Array(benchArguments.dropFirst()))
case "jpeg": runJPEGBench(Array(benchArguments.dropFirst()))
default:
    print("usage: lift-bench " + ["model", "png", "mask", "mask-quality", "pipeline", "person", "kernels", "jpeg"].joined(separator: " | ") + " [options]")
    exit(2)
}
