// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench ...`).
import Foundation
import Lift

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "mask": runMaskBench(Array(arguments.dropFirst()))
case "mask-quality": runMaskQuality(Array(arguments.dropFirst()))
default: print("lift-bench: no benchmarks yet")
}
