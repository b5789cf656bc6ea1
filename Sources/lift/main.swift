// The `lift` command line tool: `lift convert`, `lift info`, and the cut-out action (LiftCLI).
import Foundation
import LiftCLI

// A closed pipe on standard output (`lift - | head`) is an ordinary end, not a signal death.
signal(SIGPIPE, SIG_IGN)
// Photo-sized buffers (48 MB for a 12 MP RGBA image) come from the heap and are reused from image to
// image instead of being mmap'ed fresh and page-faulted in each time: a 6 MP cut-out spends half the
// system time (0.16 → 0.07–0.09 s) and the whole run ~10 % less wall time; peak RSS grows ~5 %.
// (glibc's `mallopt`; `<malloc.h>` is not part of Swift's Glibc module, so it is declared here with
// the parameter numbers from that header: M_TRIM_THRESHOLD = -1, M_MMAP_THRESHOLD = -3.)
@_silgen_name("mallopt") func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
_ = mallopt(-3, 1 << 30)
_ = mallopt(-1, 1 << 30)
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "convert": exit(runConvert(Array(arguments.dropFirst())))
case "info": exit(runInfo(Array(arguments.dropFirst())))
default: exit(LiftCommand.run(arguments, environment: .process))
}
