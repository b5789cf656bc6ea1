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
        var reserved = 0
        defer { if reserved > 0 { server.releaseBody(reserved) } }

        /// Reads more bytes into the decoder; an error when the client is gone or too slow.
        func readMore() throws(HTTPError) {
            let result = scratch.withUnsafeMutableBytes { stream.read(into: $0, deadline: deadline) }
            switch result {
            case .bytes(let count):
                decoder.append(scratch[..<count])
                received += count
            case .timedOut:
                throw HTTPError(.requestTimeout, "the request did not arrive within \(Self.seconds(server.settings.readTimeout)) (--read-timeout)")
            case .closed, .stopped:
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
            do throws(HTTPError) {
                try service.accept(request)
                switch framing {
                case .none: break
                case .length(let count): reserved = count
                case .chunked: reserved = server.settings.limits.maxBodyBytes
                }
                guard server.reserveBody(reserved) else {
                    reserved = 0
                    throw HTTPError(.serviceUnavailable, "the server is receiving as many uploads as it holds at once; try again shortly",
                                    headers: [("Retry-After", "1")], closesConnection: false)
                }
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
        guard written, !closing else {
            // An error may leave part of the request unread: linger so the client reads the answer.
            if written { stream.closeLingering() }
            return .close
        }
        return .keepAlive
    }

    /// Marks a request the client abandoned (closed or reset mid-request): nothing is answered.
    private static let clientGone = HTTPError(HTTPStatus(499), "the client closed the connection")

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
