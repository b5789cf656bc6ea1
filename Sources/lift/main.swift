// The `lift` command line tool. Placeholder until the CLI lands.
import Foundation
import Lift

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--version" {
    print("lift \(LiftVersion.string)")
    exit(0)
}
FileHandle.standardError.write("usage: lift --version\n".data(using: .utf8)!)
exit(2)
