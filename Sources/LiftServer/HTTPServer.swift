import Foundation
import Synchronization

/// An HTTP/1.1 server on POSIX sockets: one thread accepts, each connection gets its own thread
/// (blocked in `poll` while idle, so a slow client costs a socket and a sleeping thread, never a
/// worker), requests on a connection are read, answered and kept alive in order.
///
/// Limits: `HTTPLimits` on every request; `maxConnections` open at once (more are answered by the
/// `OverflowResponder`'s one thread: a health check its answer, anything else 503); the whole
/// request must arrive within `readTimeout` of its first byte (else 408), its body at least
/// `minBodyBytesPerSecond` after a few seconds; bodies claim room in a shared pool as their bytes
/// arrive, within a share per client address; a kept-alive connection waits `idleTimeout` for its
/// next request; a client that stops reading its answer is dropped after `writeTimeout`. A
/// connection whose thread cannot start is answered 503, closed and not counted.
public final class HTTPServer: Sendable {
    /// Where and how the server listens.
    public struct Settings: Sendable {
        /// Address to bind: an IPv4 or IPv6 literal or a host name (`127.0.0.1`, `::1`, `0.0.0.0`).
        public var host = "127.0.0.1"
        /// TCP port; 0 lets the system pick one (read it back from `port`).
        public var port = 7000
        /// Request size limits.
        public var limits = HTTPLimits()
        /// Connections served at once.
        public var maxConnections = 256
        /// Time allowed for a whole request (head and body) from its first byte.
        public var readTimeout: Duration = .seconds(30)
        /// Time a kept-alive connection waits for the next request.
        public var idleTimeout: Duration = .seconds(15)
        /// Time a client may take to read what it is sent before it is dropped.
        public var writeTimeout: Duration = .seconds(30)
        /// Bytes of request bodies held at once, across connections, from the head until the answer,
        /// claimed as they arrive (a request that finds no room is answered 503: before its body when
        /// the pool is full at its head, else as soon as its body passes the room left).
        /// `nil`: 8 × `limits.maxBodyBytes`.
        public var maxBufferedBodyBytes: Int?
        /// The part of `maxBufferedBodyBytes` the uploads of one client address may hold at once.
        /// `nil`: a quarter of it, at least `limits.maxBodyBytes`.
        public var maxBufferedBodyBytesPerClient: Int?
        /// The slowest a body may arrive on average, bytes per second, once `bodyRateGrace` has
        /// passed since its head (else 408, so a stalled upload gives its room back early).
        public var minBodyBytesPerSecond = 16 * 1024
        /// Time a body may take before its rate is checked.
        public var bodyRateGrace: Duration = .seconds(5)

        /// The defaults: 127.0.0.1:7000, 256 connections, 30 s read, 15 s idle, 30 s write, 8 bodies
        /// (2 per client address), 16 KiB/s.
        public init() {}

        /// `maxBufferedBodyBytes` or its default.
        var bodyBudget: Int { maxBufferedBodyBytes ?? 8 * limits.maxBodyBytes }
        /// `maxBufferedBodyBytesPerClient` or its default.
        var bodyBudgetPerClient: Int { maxBufferedBodyBytesPerClient ?? max(limits.maxBodyBytes, bodyBudget / 4) }
    }

    /// The settings served with.
    public let settings: Settings
    private let service: any HTTPService
    private let listener: Int32
    /// The port bound (the one the system chose when `settings.port` is 0).
    public let port: Int
    private let state = Mutex(State())
    /// Room for request bodies, shared by every connection.
    package let bodies: BodyPool
    /// Answers the connections over `maxConnections`, on its own thread, once started.
    private let overflow = Mutex<OverflowResponder?>(nil)

    private struct State {
        var openConnections = 0
        var draining = false
        var acceptEnded = false
    }

    /// Starts a connection's thread (`DetachedThread.start`; tests make it fail as a thread limit would).
    private let startThread: @Sendable (String, @escaping @Sendable () -> Void) -> Bool

    /// Binds and listens; call `start()` to begin accepting.
    /// - Throws: `ServerError` when the address cannot be resolved or bound.
    public convenience init(settings: Settings, service: any HTTPService) throws(ServerError) {
        try self.init(settings: settings, service: service, startThread: { DetachedThread.start(name: $0, $1) })
    }

    /// `init(settings:service:)` with the function that starts connection threads.
    package init(settings: Settings, service: any HTTPService,
                 startThread: @escaping @Sendable (String, @escaping @Sendable () -> Void) -> Bool) throws(ServerError) {
        self.settings = settings
        self.service = service
        self.startThread = startThread
        bodies = BodyPool(capacity: settings.bodyBudget, perClient: settings.bodyBudgetPerClient)
        (listener, port) = try Self.listen(host: settings.host, port: settings.port)
    }

    /// Connections open now.
    public var openConnections: Int { state.withLock { $0.openConnections } }

    /// Whether `stop` has been called.
    public var isDraining: Bool { state.withLock { $0.draining } }

    /// Starts the accepting thread and the one that answers connections over the limit.
    /// - Throws: `ServerError.cannotStartThread` when the system cannot start them.
    public func start() throws(ServerError) {
        let responder = try OverflowResponder(answer: { [self] head in overflowAnswer(to: head) },
                                              didAnswer: { [service] in service.didAnswer($0) })
        overflow.withLock { $0 = responder }
        guard DetachedThread.start(name: "lift-serve-accept", { [self] in acceptLoop() }) else {
            responder.stop()
            throw .cannotStartThread(reason: "the system refused a new thread (ulimit -u or the container's pids limit)")
        }
    }

    /// The answer to a request on a connection over `maxConnections`: the service's, when it has
    /// one that costs nothing (a health check), else 503.
    private func overflowAnswer(to head: HTTPRequestHead?) -> HTTPResponse {
        var response = head.flatMap { service.overflowResponse(to: $0) } ?? .error(busy)
        service.decorate(&response, for: head)
        return response
    }

    /// The 503 for a connection the server has no slot for.
    private var busy: HTTPError {
        HTTPError(.serviceUnavailable, "the server has \(settings.maxConnections) connections open; try again shortly",
                  headers: [("Retry-After", "1")])
    }

    /// Stops accepting, lets every request being read or processed finish and be answered, closes
    /// idle connections, and returns once all connections are closed or `timeout` has passed
    /// (true: all finished).
    public func stop(timeout: Duration) -> Bool {
        state.withLock { $0.draining = true }
        overflow.withLock { $0?.stop() }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.openConnections == 0 && $0.acceptEnded }) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    private func acceptLoop() {
        defer {
            close(listener)
            state.withLock { $0.acceptEnded = true }
        }
        while !isDraining {
            var request = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 100) > 0 else { continue }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let descriptor = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
            guard descriptor >= 0 else {
                // Out of descriptors: the backlog waits (a busy loop would keep the listener readable).
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { usleep(20_000) }
                continue
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let stream = SocketStream(descriptor: descriptor, peer: Self.describe(address), writeTimeout: settings.writeTimeout)
            let admitted = state.withLock { state -> Bool in
                guard state.openConnections < settings.maxConnections else { return false }
                state.openConnections += 1
                return true
            }
            guard admitted else {
                if overflow.withLock({ $0?.take(stream) }) != true { refuseAtOnce(stream) }
                continue
            }
            let started = startThread("lift-serve-conn") { [self] in
                HTTPConnection(stream: stream, server: self, service: service).run()
                stream.closeNow()
                state.withLock { $0.openConnections -= 1 }
            }
            if !started {
                state.withLock { $0.openConnections -= 1 }
                refuseAtOnce(stream)
            }
        }
    }

    /// Answers without waiting and closes, for a connection nothing else can take (the overflow
    /// thread is full, or no thread could be started for it): a request head already there gets
    /// the overflow answer (a health check its answer), anything else 503.
    private func refuseAtOnce(_ stream: SocketStream) {
        var arrived = [UInt8](repeating: 0, count: 8 * 1024)
        let count = max(0, stream.receiveWithoutWaiting(into: &arrived))
        var decoder = HTTPRequestDecoder()
        decoder.append(arrived[..<count])
        let head = (try? decoder.nextHead()) ?? nil
        let response = overflowAnswer(to: head)
        let bytes = response.head(closing: true) + (head?.method == "HEAD" ? [] : response.body)
        let sent = stream.sendWithoutWaiting(bytes)
        stream.closeNow()
        service.didAnswer(HTTPExchange(peer: stream.peer, head: head, status: response.status, bytesReceived: count, bytesSent: sent, duration: 0))
    }

    /// A listening socket bound to `host:port`, and the port bound.
    private static func listen(host: String, port: Int) throws(ServerError) -> (Int32, Int) {
        guard (0...65535).contains(port) else { throw .invalidAddress(host: host, port: port, reason: "the port must be 0…65535") }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw .invalidAddress(host: host, port: port, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(results) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard descriptor >= 0 else { lastError = String(cString: strerror(errno)); continue }
            var yes: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, Glibc.listen(descriptor, 512) == 0 else {
                lastError = String(cString: strerror(errno))
                close(descriptor)
                continue
            }
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
            return (descriptor, portNumber(bound))
        }
        throw .cannotListen(host: host, port: port, reason: lastError)
    }

    /// The port of an IPv4 or IPv6 socket address.
    private static func portNumber(_ address: sockaddr_storage) -> Int {
        var address = address
        let isIPv6 = address.ss_family == sa_family_t(AF_INET6)
        return withUnsafePointer(to: &address) { pointer in
            if isIPv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// `host:port` of a peer address.
    private static func describe(_ address: sockaddr_storage) -> String {
        let port = portNumber(address)
        var address = address
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(address.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) }
        }
        let name = status == 0 ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        return "\(name):\(port)"
    }
}

/// Why the server could not start.
public enum ServerError: Error, Equatable, CustomStringConvertible {
    /// The host or port cannot be used.
    case invalidAddress(host: String, port: Int, reason: String)
    /// Binding or listening failed (the port is taken, or needs privileges).
    case cannotListen(host: String, port: Int, reason: String)
    /// A thread the server needs could not be started.
    case cannotStartThread(reason: String)

    public var description: String {
        switch self {
        case .invalidAddress(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .cannotStartThread(let reason): "cannot start the server's threads: \(reason)"
        }
    }
}
