import Foundation
import LiftImage
import LiftServer

/// SIGINT, SIGTERM and SIGHUP, handled on a thread of their own that waits for them (`sigwait`),
/// never on Dispatch's shared pool, which photos or a flood of connections can keep busy: a signal
/// is acted on within milliseconds whatever the process is doing. The cut-out action removes the
/// temporary file of an output being written, then ends as the signal would have (`installCleanup`);
/// `lift serve` drains (`ServeCommand`). A signal the shell already ignores (a background job's
/// SIGINT) stays ignored.
public enum SignalCleanup {
    /// The signals handled.
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Blocks `signals` in the calling thread; call first thing in `main`, before any other thread
    /// starts, so that every thread inherits the mask and the signals wait for `watch`'s thread.
    public static func block() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts the thread that calls `handler` with each signal of `signals` as it arrives (those not
    /// ignored); false when the thread cannot be started.
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> Bool {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals where !isIgnored(number) { sigaddset(&set, number) }
        let waited = set
        return DetachedThread.start(name: "lift-signals", stackSize: 256 << 10) {
            var set = waited
            while true {
                var number: Int32 = 0
                if sigwait(&set, &number) == 0 { handler(number) }
            }
        }
    }

    /// Installs the cut-out action's handling: remove the temporary files being written, then end by
    /// the signal (`AtomicFile.removeTemporaryFiles(thenRaise:)`).
    public static func installCleanup() {
        _ = watch { AtomicFile.removeTemporaryFiles(thenRaise: $0) }
    }

    /// Whether the process ignores `number` (looked up, not changed).
    private static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0, let handler = current.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
