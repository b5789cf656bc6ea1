// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench SUBCOMMAND ...`).
import Foundation
import Lift

let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "model": runModelBench(Array(benchArguments.dropFirst()))
default:
    print("usage: lift-bench model [--size 320] [--runs 10] [--threads 1,2]")
    exit(2)
}
