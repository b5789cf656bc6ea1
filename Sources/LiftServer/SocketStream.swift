import Foundation
import Synchronization

/// A connected TCP socket, read and written with time limits (POSIX `poll`, `recv`, `send`).
package final class SocketStream: Sendable {
    /// The file descriptor; closed by `close()`.
    let descriptor: Int32
    /// The client's address as `host:port`.
    let peer: String
    /// Set by the first close: the descriptor number may be reused by the next accepted connection
    /// at once, so closing it a second time would close another client's socket.
    private let closed = Atomic<Bool>(false)

    /// What a read returned.
    enum ReadResult {
        /// This many bytes were read into the buffer.
        case bytes(Int)
        /// The client closed its side (or reset the connection).
        case closed
        /// Nothing arrived before the deadline.
        case timedOut
        /// `shouldStop` returned true while waiting.
        case stopped
    }

    package init(descriptor: Int32, peer: String, writeTimeout: Duration) {
        self.descriptor = descriptor
        self.peer = peer
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        // A client that stops reading its response is dropped after the write timeout.
        var limit = timeval(tv_sec: Int(writeTimeout.components.seconds), tv_usec: Int(writeTimeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads what is available into `buffer`, waiting until `deadline`; polls `shouldStop` every
    /// 100 ms while waiting.
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant,
              shouldStop: () -> Bool = { false }) -> ReadResult {
        while true {
            let left = deadline - .now
            if left <= .zero { return .timedOut }
            if shouldStop() { return .stopped }
            let slice = min(left, .milliseconds(100))
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, Int32(max(1, slice.components.seconds * 1000 + slice.components.attoseconds / 1_000_000_000_000_000)))
            if ready < 0, errno == EINTR { continue }
            if ready < 0 { return .closed }
            if ready == 0 { continue }
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            return .closed
        }
    }

    /// Sends all of `bytes`; false when the client is gone or stopped reading for the write timeout.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent > 0 { offset += sent; continue }
                if sent < 0, errno == EINTR { continue }
                return false
            }
            return true
        }
    }

    /// Reads what has arrived into `buffer` without waiting: the count, 0 when the client closed its
    /// side (or the connection failed), -1 when nothing is there now.
    func receiveWithoutWaiting(into buffer: inout [UInt8]) -> Int {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count >= 0 { return count }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : 0
    }

    /// Sends what of `bytes` the socket's buffer takes now, without waiting; returns how many.
    func sendWithoutWaiting(_ bytes: [UInt8]) -> Int {
        let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        return max(0, sent)
    }

    /// Stops sending (the client reads the end of the answer); reading goes on.
    func shutdownSending() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// The client's address without its port (`127.0.0.1`, `::1`), whose uploads share one part of the body budget.
    var host: String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }

    /// Closes after an error answer whose request body may still be arriving: stops sending, reads and
    /// drops what the client still sends (so the kernel does not reset the connection and lose the
    /// answer before the client read it) for at most `linger`, then closes.
    func closeLingering(linger: Duration = .seconds(5)) {
        shutdown(descriptor, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + linger
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        reading: while true {
            let result = scratch.withUnsafeMutableBytes { read(into: $0, deadline: min(deadline, .now + .seconds(1))) }
            switch result {
            case .bytes: continue
            case .closed, .timedOut, .stopped: break reading
            }
        }
        closeNow()
    }

    /// Closes the socket; later calls do nothing.
    package func closeNow() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = close(descriptor)
    }
}
