import Foundation

/// One client connection: reads requests in order, asks the service to accept each head, answers
/// `Expect: 100-continue`, reads the body, writes the answer, and keeps the connection alive until
/// the client closes it, asks to, idles past the idle timeout, or the server drains.
struct HTTPConnection {
    let stream: SocketStream
    let server: HTTPServer
    let service: any HTTPService

    /// How a request ended for the connection.
    private enum Outcome {
        /// Answered; the connection may carry another request.
        case keepAlive
        /// Answered (or abandoned); close the connection.
        case close
    }

    /// Serves requests until the connection ends.
    func run() {
        var decoder = HTTPRequestDecoder(limits: server.settings.limits)
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // Wait for the next request's first byte (unless a pipelined one is already buffered).
            var received = 0
            if decoder.bufferedByteCount == 0 {
                let result = scratch.withUnsafeMutableBytes {
                    stream.read(into: $0, deadline: .now + server.settings.idleTimeout, shouldStop: { server.isDraining })
                }
                guard case .bytes(let count) = result else { return }
                decoder.append(scratch[..<count])
                received = count
            }
            if serveRequest(&decoder, scratch: &scratch, received: received) == .close { return }
        }
    }

    /// Reads, answers and accounts for one request whose first bytes are in `decoder`.
    private func serveRequest(_ decoder: inout HTTPRequestDecoder, scratch: inout [UInt8], received: Int) -> Outcome {
        let started = ContinuousClock.now
        let deadline = started + server.settings.readTimeout
        var received = received
        var head: HTTPRequestHead?
        var bodyFraming: BodyFraming?
        var bodyRead = false
        /// The body being kept: when it started, bytes read since, the most it may claim, and the
        /// room claimed for it in the server's pool (given back when the request is answered).
        var body: (started: ContinuousClock.Instant, received: Int, limit: Int)?
        var claimed = 0
        defer { server.bodies.release(claimed, for: stream.host) }
        let settings = server.settings

        /// Claims room for what the body has sent so far (in steps of `claimStep`, at most its limit).
        func claimBody(received: Int, limit: Int) throws(HTTPError) {
            guard received > claimed, claimed < limit else { return }
            let step = min(max(received - claimed, Self.claimStep), limit - claimed)
            do throws(BodyPool.Refusal) {
                try server.bodies.claim(step, for: stream.host)
            } catch {
                throw Self.noRoom(error, settings: settings, beforeBody: body == nil)
            }
            claimed += step
        }

        /// Reads more bytes into the decoder; an error when the client is gone or too slow, or the
        /// server stops while the head is still arriving.
        func readMore() throws(HTTPError) {
            let slowBodyAt = body.map { $0.started + max(settings.bodyRateGrace, Self.duration(bytes: $0.received, at: settings.minBodyBytesPerSecond)) }
            let result = scratch.withUnsafeMutableBytes {
                stream.read(into: $0, deadline: min(deadline, slowBodyAt ?? deadline), shouldStop: { head == nil && server.isDraining })
            }
            switch result {
            case .bytes(let count):
                decoder.append(scratch[..<count])
                received += count
                if let current = body {
                    body?.received += count
                    try claimBody(received: current.received + count, limit: current.limit)
                }
            case .timedOut where ContinuousClock.now < deadline:
                throw HTTPError(.requestTimeout, "the request body arrives slower than \(ByteCount.text(settings.minBodyBytesPerSecond)) per second")
            case .timedOut:
                throw HTTPError(.requestTimeout, "the request did not arrive within \(Self.seconds(settings.readTimeout)) (--read-timeout)")
            case .stopped:
                throw HTTPError(.serviceUnavailable, "the server is stopping", headers: [("Retry-After", "1")])
            case .closed:
                throw Self.clientGone
            }
        }

        var response: HTTPResponse
        var closing: Bool
        do throws(HTTPError) {
            var parsed: HTTPRequestHead?
            while parsed == nil {
                parsed = try decoder.nextHead()
                if parsed == nil { try readMore() }
            }
            guard let request = parsed else { preconditionFailure("the loop ends with a head") }
            head = request
            let framing = try request.bodyFraming(maxBodyBytes: server.settings.limits.maxBodyBytes)
            bodyFraming = framing
            let expectations = request.headers.tokens("Expect")
            if !expectations.isEmpty, expectations != ["100-continue"] {
                throw HTTPError(.expectationFailed, "only 'Expect: 100-continue' is supported")
            }
            let bodyLimit: Int
            switch framing {
            case .none: bodyLimit = 0
            case .length(let count): bodyLimit = count
            case .chunked: bodyLimit = settings.limits.maxBodyBytes
            }
            do throws(HTTPError) {
                try service.accept(request)
                // A first step of room before the body is read (so a full pool is answered before the
                // upload); the rest is claimed as the bytes arrive.
                try claimBody(received: min(1, bodyLimit), limit: bodyLimit)
            } catch {
                // Refused: a body already on its way (no 100-continue asked) is read past without
                // being kept, so the client reads the answer and may send its next request on this
                // connection instead of opening another.
                if framing != .none, !request.expectsContinue, !error.closesConnection {
                    decoder.beginBody(framing, keep: false)
                    while try decoder.nextBody() == nil { try readMore() }
                    bodyRead = true
                }
                throw error
            }
            decoder.beginBody(framing)
            if framing != .none {
                body = (ContinuousClock.now, decoder.bufferedByteCount, bodyLimit)
                try claimBody(received: decoder.bufferedByteCount, limit: bodyLimit)
            }
            if framing != .none, request.expectsContinue, request.minorVersion >= 1 {
                guard stream.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { throw Self.clientGone }
            }
            var body: [UInt8]?
            while body == nil {
                body = try decoder.nextBody()
                if body == nil { try readMore() }
            }
            bodyRead = true
            response = service.respond(to: request, body: body ?? [])
            closing = !request.keepsAlive || server.isDraining
        } catch {
            if error == Self.clientGone {
                service.didAnswer(HTTPExchange(peer: stream.peer, head: head, status: HTTPStatus(499), bytesReceived: received,
                                               bytesSent: 0, duration: Self.seconds(since: started)))
                return .close
            }
            response = .error(error)
            // A refused request whose body was read past (or had none) leaves the stream in step: the
            // connection may go on.
            closing = error.closesConnection || (!bodyRead && bodyFraming != BodyFraming.none) || head?.keepsAlive != true
                || server.isDraining
        }
        service.decorate(&response, for: head)
        let bytes = response.head(closing: closing) + (head?.method == "HEAD" ? [] : response.body)
        let written = stream.write(bytes)
        service.didAnswer(HTTPExchange(peer: stream.peer, head: head, status: response.status, bytesReceived: received,
                                       bytesSent: written ? bytes.count : 0, duration: Self.seconds(since: started)))
        // Answered: the body's room goes back before any lingering close.
        server.bodies.release(claimed, for: stream.host)
        claimed = 0
        guard written, !closing else {
            // An error may leave part of the request unread: linger so the client reads the answer.
            if written { stream.closeLingering() }
            return .close
        }
        return .keepAlive
    }

    /// Marks a request the client abandoned (closed or reset mid-request): nothing is answered.
    private static let clientGone = HTTPError(HTTPStatus(499), "the client closed the connection")

    /// Room claimed for a body at a time (so a large upload takes the pool's lock every 64 KiB at most).
    private static let claimStep = 64 * 1024

    /// The 503 for a body the pool has no room for; before the body, the connection may go on.
    private static func noRoom(_ refusal: BodyPool.Refusal, settings: HTTPServer.Settings, beforeBody: Bool) -> HTTPError {
        let message = switch refusal {
        case .full: "the server is receiving as many uploads as it holds at once; try again shortly"
        case .clientShare: "this client is sending as many uploads at once as one client may (\(ByteCount.text(settings.bodyBudgetPerClient))); "
            + "send the next once one is answered"
        }
        return HTTPError(.serviceUnavailable, message, headers: [("Retry-After", "1")], closesConnection: !beforeBody)
    }

    /// The time `bytes` take at `rate` bytes per second.
    private static func duration(bytes: Int, at rate: Int) -> Duration {
        .milliseconds(Int64(Double(bytes) / Double(max(rate, 1)) * 1000))
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
