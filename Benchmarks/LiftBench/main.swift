// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench SUBCOMMAND ...`).
import Foundation
import Lift

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "person": try runPersonBench(Array(arguments.dropFirst()))
default: print("usage: lift-bench person [--runs N] [--warmup N]")
}
