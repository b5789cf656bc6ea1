// lift-bench: Lift's benchmarks (always `swift run -c release lift-bench ...`). Placeholder.
import Foundation
import Lift

print("lift-bench: no benchmarks yet")
