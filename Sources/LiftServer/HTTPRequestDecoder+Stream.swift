extension HTTPRequestDecoder {
    /// Every request in `bytes`, fed to a decoder `pieceSize` bytes at a time as a socket would
    /// deliver them (for tests and the fuzz target; the server feeds what each read returns).
    /// - Throws: the first `HTTPError` the stream causes.
    package static func requests(in bytes: [UInt8], pieceSize: Int = .max,
                                 limits: HTTPLimits = HTTPLimits()) throws(HTTPError) -> [(head: HTTPRequestHead, body: [UInt8])] {
        var decoder = HTTPRequestDecoder(limits: limits)
        let step = max(1, pieceSize)
        var offset = 0
        var requests: [(head: HTTPRequestHead, body: [UInt8])] = []
        var pending: HTTPRequestHead?
        while true {
            if pending == nil, let head = try decoder.nextHead() {
                decoder.beginBody(try head.bodyFraming(maxBodyBytes: limits.maxBodyBytes))
                pending = head
            }
            if let head = pending, let body = try decoder.nextBody() {
                requests.append((head, body))
                pending = nil
                continue
            }
            guard offset < bytes.count else { return requests }
            let end = offset + min(step, bytes.count - offset)
            decoder.append(bytes[offset..<end])
            offset = end
        }
    }
}
