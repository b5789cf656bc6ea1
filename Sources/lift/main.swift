// The `lift` command line tool: `lift convert`, `lift info`, `lift import`, `lift serve`, and the cut-out action (LiftCLI).
import Foundation
import LiftCLI

// A closed pipe on standard output (`lift - | head`) is an ordinary end, not a signal death.
signal(SIGPIPE, SIG_IGN)
// Before any thread starts: SIGINT, SIGTERM and SIGHUP then wait for the thread that handles them.
SignalCleanup.block()
HeapTuning.apply()
let arguments = Array(CommandLine.arguments.dropFirst())
// The server drains on SIGTERM instead (ServeCommand); everything else writes files and cleans up.
if arguments.first == "serve" { exit(runServe(Array(arguments.dropFirst()))) }
SignalCleanup.installCleanup()
switch arguments.first {
case "convert": exit(runConvert(Array(arguments.dropFirst())))
case "info": exit(runInfo(Array(arguments.dropFirst())))
case "import": exit(runImport(Array(arguments.dropFirst())))
default: exit(LiftCommand.run(arguments, environment: .process))
}
