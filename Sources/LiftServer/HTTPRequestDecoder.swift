/// Turns the bytes a client sends into request heads and bodies, one request after another on a
/// kept-alive connection (pipelined requests stay buffered for the next call).
///
/// Pure and incremental: `append` what the socket returned, then ask for `nextHead()` and, once the
/// caller has accepted the head, `nextBody(_:)`; each returns nil while more bytes are needed.
/// Every limit in `HTTPLimits` is checked as bytes arrive, so a client can make it hold at most
/// `maxHeaderBytes` for a head and `maxBodyBytes` for a body.
public struct HTTPRequestDecoder: Sendable {
    /// The limits applied.
    public let limits: HTTPLimits
    /// Received bytes; those before `start` are consumed.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the head's end resumes (so a head sent byte by byte costs linear time).
    private var scanned = 0
    /// The body being decoded, when a head has been returned and its body not yet.
    private var body: BodyState?

    /// A decoder with `limits`.
    public init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    /// Bytes received and not yet consumed.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds bytes received from the client.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next request's head once all of it has arrived, else nil.
    /// - Throws: `HTTPError` 400 (malformed), 414 (request line too long), 431 (head too large or
    ///   too many fields), 505 (not HTTP/1.x).
    public mutating func nextHead() throws(HTTPError) -> HTTPRequestHead? {
        precondition(body == nil, "the previous request's body was not read")
        // RFC 9112 §2.2: empty lines before a request line are ignored.
        while start < buffer.count, buffer[start] == 13 || buffer[start] == 10 { start += 1 }
        scanned = max(scanned, start)
        guard let end = findHeadEnd() else {
            let pending = buffer.count - start
            if pending > limits.maxHeaderBytes { throw HTTPError(.headerFieldsTooLarge, "the request head is larger than \(ByteCount.text(limits.maxHeaderBytes))") }
            if !buffer[start...].contains(10), pending > limits.maxRequestLineBytes {
                throw HTTPError(.uriTooLong, "the request line is longer than \(ByteCount.text(limits.maxRequestLineBytes))")
            }
            return nil
        }
        guard end.headEnd - start <= limits.maxHeaderBytes else {
            throw HTTPError(.headerFieldsTooLarge, "the request head is larger than \(ByteCount.text(limits.maxHeaderBytes))")
        }
        let head = try parseHead(buffer[start..<end.headEnd])
        start = end.next
        scanned = start
        return head
    }

    /// Prepares to read the body `framing` describes; call after `nextHead()` returned its head.
    /// - Parameter keep: false reads the body past without keeping it (a refused request's body,
    ///   read so that the connection can carry the next request); `nextBody()` then returns [].
    public mutating func beginBody(_ framing: BodyFraming, keep: Bool = true) {
        switch framing {
        case .none: body = nil
        case .length(let count): body = keep ? .length(remaining: count, received: []) : .skipped(remaining: count)
        case .chunked:
            body = .chunked(ChunkedBodyDecoder(maxBodyBytes: limits.maxBodyBytes, maxTrailerBytes: limits.maxHeaderBytes,
                                               maxTrailerFields: limits.maxTrailerFieldCount, keep: keep))
        }
    }

    /// The body begun with `beginBody`, once all of it has arrived ([] for none), else nil.
    /// - Throws: 400 for malformed chunked coding, 413 when it grows over `maxBodyBytes`, 431 for
    ///   oversized trailers or more than `maxTrailerFieldCount` of them.
    public mutating func nextBody() throws(HTTPError) -> [UInt8]? {
        guard let state = body else { return [] }
        switch state {
        case .length(let remaining, var received):
            // The state's copy is dropped first, so the body grows in place; it grows with what has
            // arrived, never to the declared length before the bytes do.
            body = nil
            let count = min(remaining, buffer.count - start)
            received.append(contentsOf: buffer[start..<start + count])
            start += count
            scanned = start
            if count == remaining {
                body = nil
                return received
            }
            body = .length(remaining: remaining - count, received: received)
            return nil
        case .skipped(let remaining):
            let count = min(remaining, buffer.count - start)
            start += count
            scanned = start
            body = count == remaining ? nil : .skipped(remaining: remaining - count)
            return count == remaining ? [] : nil
        case .chunked(var decoder):
            body = nil
            let consumed = try decoder.consume(buffer[start...])
            start += consumed
            scanned = start
            if decoder.isComplete { return decoder.body }
            body = .chunked(decoder)
            return nil
        }
    }

    private enum BodyState: Sendable {
        case length(remaining: Int, received: [UInt8])
        case skipped(remaining: Int)
        case chunked(ChunkedBodyDecoder)
    }

    /// The end of the head: the index after its last field line, and where the body starts.
    private mutating func findHeadEnd() -> (headEnd: Int, next: Int)? {
        var index = max(scanned, start)
        while index < buffer.count {
            if buffer[index] == 10 {
                // "\n\n" or "\n\r\n" ends the head.
                if index + 1 < buffer.count, buffer[index + 1] == 10 { return (index + 1, index + 2) }
                if index + 2 < buffer.count, buffer[index + 1] == 13, buffer[index + 2] == 10 { return (index + 1, index + 3) }
                if index + 2 >= buffer.count { scanned = index; return nil }
            }
            index += 1
        }
        scanned = index
        return nil
    }

    /// Parses the request line and fields of a complete head (lines ending in LF or CRLF).
    private func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> HTTPRequestHead {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        for index in bytes.indices where bytes[index] == 10 {
            var line = bytes[lineStart..<index]
            if line.last == 13 { line = line.dropLast() }
            lines.append(line)
            lineStart = index + 1
        }
        guard let requestLine = lines.first else { throw HTTPError(.badRequest, "the request has no request line") }
        guard requestLine.count <= limits.maxRequestLineBytes else {
            throw HTTPError(.uriTooLong, "the request line is longer than \(ByteCount.text(limits.maxRequestLineBytes))")
        }
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(Self.isTokenByte), !parts[1].isEmpty,
              parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw HTTPError(.badRequest, "malformed request line; expected 'METHOD /path HTTP/1.1'")
        }
        let version = Array(parts[2])
        guard version.count == 8, version.starts(with: Array("HTTP/".utf8)), version[6] == 46,
              (48...57).contains(version[5]), (48...57).contains(version[7]) else {
            throw HTTPError(.badRequest, "malformed HTTP version in the request line")
        }
        guard version[5] == 49 else { throw HTTPError(.versionNotSupported, "only HTTP/1.0 and HTTP/1.1 are supported") }
        let target = String(decoding: parts[1], as: UTF8.self)
        guard target.hasPrefix("/") || (target == "*" && parts[0].elementsEqual("OPTIONS".utf8)) else {
            throw HTTPError(.badRequest, "the request target must be a path starting with '/'")
        }
        let (path, query) = try Self.splitTarget(target)

        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard headers.fields.count < limits.maxHeaderFieldCount else {
                throw HTTPError(.headerFieldsTooLarge, "the request has more than \(limits.maxHeaderFieldCount) header fields")
            }
            guard let first = line.first, first != 32, first != 9 else {
                throw HTTPError(.badRequest, "folded header lines (starting with a space) are not allowed")
            }
            guard let colon = line.firstIndex(of: 58), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(Self.isTokenByte) else {
                throw HTTPError(.badRequest, "malformed header field '\(String(decoding: line.prefix(60), as: UTF8.self))'")
            }
            let value = line[(colon + 1)...]
            guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw HTTPError(.badRequest, "a header field value holds a control character")
            }
            headers.append(name: String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                           value: String(decoding: value, as: UTF8.self).trimmingASCIISpaces)
        }
        let minor = Int(version[7] - 48)
        if minor >= 1 {
            let hosts = headers.values("Host")
            guard hosts.count == 1 else {
                throw HTTPError(.badRequest, hosts.isEmpty ? "an HTTP/1.1 request needs a Host header" : "the request has more than one Host header")
            }
        }
        return HTTPRequestHead(method: String(decoding: parts[0], as: UTF8.self), target: target, path: path, query: query,
                               minorVersion: minor, headers: headers)
    }

    /// RFC 9110 `tchar`: the bytes a method or field name may hold.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: true
        default: false
        }
    }

    /// `/path?a=1&b=x%20y` → ("/path", [("a", "1"), ("b", "x y")]).
    static func splitTarget(_ target: String) throws(HTTPError) -> (path: String, query: [(name: String, value: String)]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, []) }
        let path = String(target[..<mark])
        var query: [(name: String, value: String)] = []
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = FormDecoding.percentDecode(parts[0]), let value = FormDecoding.percentDecode(parts.count > 1 ? parts[1] : "") else {
                throw HTTPError(.badRequest, "the query string holds an invalid percent-encoding")
            }
            query.append((name, value))
        }
        return (path, query)
    }
}

/// `application/x-www-form-urlencoded` decoding (query strings).
enum FormDecoding {
    /// Decodes `%XX` escapes and `+` (a space); nil for a malformed escape or bytes that are not UTF-8.
    static func percentDecode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case 43: bytes.append(32)
            case 37:
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The value of one hexadecimal digit.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}
