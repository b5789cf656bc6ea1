// The `lift` command line tool. Placeholder until the CLI lands; `convert` and `info` work.
import Foundation
import Lift

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "--version":
    print("lift \(LiftVersion.string)")
    exit(0)
case "convert":
    exit(runConvert(Array(arguments.dropFirst())))
case "info":
    exit(runInfo(Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write("usage: lift --version | lift convert INPUT OUTPUT.png | lift info FILE\n".data(using: .utf8)!)
    exit(2)
}
