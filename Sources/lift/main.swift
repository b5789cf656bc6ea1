// The `lift` command line tool: every command is a `LiftCLI` type (`LiftCommand` picks it); this file
// only prepares the process.
import Foundation
import LiftCLI

// A closed pipe on standard output (`lift - | head`) is an ordinary end, not a signal death.
signal(SIGPIPE, SIG_IGN)
// Before any thread starts: SIGINT, SIGTERM and SIGHUP then wait for the thread that handles them.
SignalCleanup.block()
HeapTuning.apply()
let (command, arguments) = LiftCommand.command(for: Array(CommandLine.arguments.dropFirst()))
// A server drains on SIGTERM instead (ServeCommand); everything else writes files and cleans up.
if !command.handlesSignals { SignalCleanup.installCleanup() }
exit(command.run(arguments, environment: .process))
