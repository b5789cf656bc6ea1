import Foundation
import Synchronization

/// An HTTP/1.1 server on POSIX sockets: one thread accepts, each connection gets its own thread
/// (blocked in `poll` while idle, so a slow client costs a socket and a sleeping thread, never a
/// worker), requests on a connection are read, answered and kept alive in order.
///
/// Limits: `HTTPLimits` on every request; `maxConnections` open at once (more get 503 and are
/// closed); the whole request must arrive within `readTimeout` of its first byte (else 408); a
/// kept-alive connection waits `idleTimeout` for its next request; a client that stops reading
/// its answer is dropped after `writeTimeout`.
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
        /// Bytes of request bodies held at once, across connections, from the head until the answer
        /// (a `Content-Length` body reserves its length, a chunked one `maxBodyBytes`); a request that
        /// does not fit is answered 503 before its body is read. `nil`: 8 × `limits.maxBodyBytes`.
        public var maxBufferedBodyBytes: Int?

        /// The defaults: 127.0.0.1:7000, 256 connections, 30 s read, 15 s idle, 30 s write, 8 bodies.
        public init() {}

        /// `maxBufferedBodyBytes` or its default.
        var bodyBudget: Int { maxBufferedBodyBytes ?? 8 * limits.maxBodyBytes }
    }

    /// The settings served with.
    public let settings: Settings
    private let service: any HTTPService
    private let listener: Int32
    /// The port bound (the one the system chose when `settings.port` is 0).
    public let port: Int
    private let state = Mutex(State())

    private struct State {
        var openConnections = 0
        var bufferedBodyBytes = 0
        var draining = false
        var acceptEnded = false
    }

    /// Binds and listens; call `start()` to begin accepting.
    /// - Throws: `ServerError` when the address cannot be resolved or bound.
    public init(settings: Settings, service: any HTTPService) throws(ServerError) {
        self.settings = settings
        self.service = service
        (listener, port) = try Self.listen(host: settings.host, port: settings.port)
    }

    /// Connections open now.
    public var openConnections: Int { state.withLock { $0.openConnections } }

    /// Whether `stop` has been called.
    public var isDraining: Bool { state.withLock { $0.draining } }

    /// Reserves room for a body of `bytes`; false when the bodies held now leave too little.
    func reserveBody(_ bytes: Int) -> Bool {
        state.withLock { state in
            guard state.bufferedBodyBytes + bytes <= settings.bodyBudget else { return false }
            state.bufferedBodyBytes += bytes
            return true
        }
    }

    /// Returns a reservation made by `reserveBody`.
    func releaseBody(_ bytes: Int) { state.withLock { $0.bufferedBodyBytes -= bytes } }

    /// Starts the accepting thread.
    public func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "lift-serve-accept"
        thread.start()
    }

    /// Stops accepting, lets every request being read or processed finish and be answered, closes
    /// idle connections, and returns once all connections are closed or `timeout` has passed
    /// (true: all finished).
    public func stop(timeout: Duration) -> Bool {
        state.withLock { $0.draining = true }
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
            guard descriptor >= 0 else { continue }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let stream = SocketStream(descriptor: descriptor, peer: Self.describe(address), writeTimeout: settings.writeTimeout)
            let admitted = state.withLock { state -> Bool in
                guard state.openConnections < settings.maxConnections else { return false }
                state.openConnections += 1
                return true
            }
            guard admitted else {
                var response = HTTPResponse.error(HTTPError(.serviceUnavailable, "the server has \(settings.maxConnections) connections open; try again shortly",
                                                            headers: [("Retry-After", "1")]))
                service.decorate(&response, for: nil)
                // Answered here; the lingering close runs elsewhere so a flood cannot stall accepting.
                let bytes = response.head(closing: true) + response.body
                DispatchQueue.global().async { [service] in
                    let written = stream.write(bytes)
                    service.didAnswer(HTTPExchange(peer: stream.peer, head: nil, status: .serviceUnavailable, bytesReceived: 0,
                                                   bytesSent: written ? bytes.count : 0, duration: 0))
                    stream.closeLingering(linger: .seconds(1))
                }
                continue
            }
            let thread = Thread { [self] in
                HTTPConnection(stream: stream, server: self, service: service).run()
                stream.closeNow()
                state.withLock { $0.openConnections -= 1 }
            }
            thread.stackSize = 4 << 20
            thread.name = "lift-serve-connection"
            thread.start()
        }
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

    public var description: String {
        switch self {
        case .invalidAddress(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
