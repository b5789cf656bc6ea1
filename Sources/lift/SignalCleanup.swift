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
            // Looked up, not changed: until Dispatch installs its handler, the default action ends the
            // process (no temporary file exists that early).
            var current = sigaction()
            guard sigaction(number, nil, &current) == 0 else { continue }
            if let handler = current.__sigaction_handler.sa_handler,
               unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { AtomicFile.removeTemporaryFiles(thenRaise: number) }
            source.resume()
            sources.append(source)
        }
    }
}
