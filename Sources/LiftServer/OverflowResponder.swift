import Foundation
import Synchronization

/// Answers the connections the server has no slot for (more than `--max-connections` open), all on
/// one thread of its own that never blocks: a flood of connections costs this thread and a bounded
/// number of descriptors, never a thread of Dispatch's shared pool (which signal handling and the
/// workers need) and never the accepting thread.
///
/// Each connection gets `patience` for its request head to arrive; a request the service can answer
/// without a slot (`HTTPService.overflowResponse`: a health check) gets its answer, anything else
/// the server's 503. The answer is sent without waiting (it fits the socket's buffer), then what the
/// client still sends is read and dropped for `linger` (not when it sent nothing), so the client
/// reads the answer rather than a reset, and the socket is closed. More than `capacity` connections
/// waiting here: answered at once by the caller from what has arrived, and closed.
final class OverflowResponder: Sendable {
    /// Connections held at once.
    static let capacity = 512
    /// Time for a request head to arrive before the connection is answered anyway.
    static let patience: Duration = .milliseconds(500)
    /// Time the rest of a request is read and dropped after the answer.
    static let linger: Duration = .seconds(1)
    /// Most bytes of a request head looked at.
    private static let headBytes = 8 * 1024

    /// The answer to a request head (nil: none arrived, or it could not be parsed).
    private let answer: @Sendable (HTTPRequestHead?) -> HTTPResponse
    private let didAnswer: @Sendable (HTTPExchange) -> Void
    /// Connections handed over and not yet taken by the thread, and how many are here in all.
    private let incoming = Mutex<[SocketStream]>([])
    private let held = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// A pipe whose write end wakes the thread from `poll`.
    private let wakeRead: Int32, wakeWrite: Int32

    /// Starts the thread.
    /// - Throws: `ServerError.cannotStartThread` when the system cannot start it.
    init(answer: @escaping @Sendable (HTTPRequestHead?) -> HTTPResponse,
         didAnswer: @escaping @Sendable (HTTPExchange) -> Void) throws(ServerError) {
        self.answer = answer
        self.didAnswer = didAnswer
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .cannotStartThread(reason: String(cString: strerror(errno))) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        guard DetachedThread.start(name: "lift-overflow", stackSize: 1 << 20, { [self] in run() }) else {
            throw .cannotStartThread(reason: "the system refused a new thread (ulimit -u or the container's pids limit)")
        }
    }

    /// Takes `stream` to answer; false when `capacity` connections are here already (the caller
    /// answers it at once).
    func take(_ stream: SocketStream) -> Bool {
        guard held.add(1, ordering: .relaxed).newValue <= Self.capacity, !stopping.load(ordering: .relaxed) else {
            held.subtract(1, ordering: .relaxed)
            return false
        }
        incoming.withLock { $0.append(stream) }
        wake()
        return true
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Closes every connection held and ends the thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// One connection waiting here.
    private struct Waiting {
        let stream: SocketStream
        let arrived: ContinuousClock.Instant
        var head: [UInt8] = []
        var answered: ContinuousClock.Instant?
    }

    private func run() {
        var waiting: [Waiting] = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if stopping.load(ordering: .relaxed) {
                for connection in waiting + incoming.withLock({ $0 }).map({ Waiting(stream: $0, arrived: .now) }) { connection.stream.closeNow() }
                return
            }
            var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                + waiting.map { pollfd(fd: $0.stream.descriptor, events: Int16(POLLIN), revents: 0) }
            _ = poll(&descriptors, nfds_t(descriptors.count), 50)
            while read(wakeRead, &scratch, scratch.count) > 0 {}
            let now = ContinuousClock.now
            waiting += incoming.withLock { streams in
                defer { streams.removeAll() }
                return streams.map { Waiting(stream: $0, arrived: now) }
            }
            var kept: [Waiting] = []
            for (index, var connection) in waiting.enumerated() {
                var closedByClient = false
                if index + 1 < descriptors.count, descriptors[index + 1].revents != 0 {
                    let count = connection.stream.receiveWithoutWaiting(into: &scratch)
                    if count == 0 { closedByClient = true }
                    if count > 0, connection.answered == nil { connection.head += scratch.prefix(min(count, Self.headBytes - connection.head.count)) }
                }
                if connection.answered == nil, closedByClient || headComplete(connection.head)
                    || connection.head.count >= Self.headBytes || now - connection.arrived >= Self.patience {
                    respond(&connection, now: now)
                }
                // A client that sent nothing has nothing left to read: closed as soon as answered.
                let lingered = connection.answered.map { connection.head.isEmpty || now - $0 >= Self.linger } ?? false
                if closedByClient || lingered {
                    connection.stream.closeNow()
                    held.subtract(1, ordering: .relaxed)
                } else {
                    kept.append(connection)
                }
            }
            waiting = kept
        }
    }

    /// Whether `bytes` hold a whole request head (an empty line ends it).
    private func headComplete(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        for index in 1 ..< bytes.count where bytes[index] == 10 {
            if bytes[index - 1] == 10 || (index >= 2 && bytes[index - 1] == 13 && bytes[index - 2] == 10) { return true }
        }
        return false
    }

    /// Sends the answer to what arrived (without waiting) and shuts the sending side.
    private func respond(_ connection: inout Waiting, now: ContinuousClock.Instant) {
        var decoder = HTTPRequestDecoder()
        decoder.append(connection.head)
        let head = (try? decoder.nextHead()) ?? nil
        let response = answer(head)
        let bytes = response.head(closing: true) + (head?.method == "HEAD" ? [] : response.body)
        let sent = connection.stream.sendWithoutWaiting(bytes)
        connection.stream.shutdownSending()
        connection.answered = now
        let elapsed = now - connection.arrived
        didAnswer(HTTPExchange(peer: connection.stream.peer, head: head, status: response.status, bytesReceived: connection.head.count,
                               bytesSent: sent, duration: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18))
    }
}
