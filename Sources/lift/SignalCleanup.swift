import Dispatch
import Foundation
import LiftImage

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP: remove the temporary file of an output being written, then
/// end as the signal would have. A signal the shell already ignores (a background job) stays ignored.
enum SignalCleanup {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; call once, first thing.
    static func install() {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(number, SIG_IGN)
            if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { AtomicFile.removeTemporaryFiles(thenRaise: number) }
            source.resume()
            sources.append(source)
        }
    }
}
