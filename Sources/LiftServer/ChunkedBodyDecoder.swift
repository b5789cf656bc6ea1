/// Decodes a chunked body (RFC 9112 §7.1) incrementally: chunk sizes (extensions ignored), data,
/// and trailer fields (read and dropped), within a body limit and limits on the trailer's bytes and fields.
struct ChunkedBodyDecoder: Sendable {
    /// The decoded body so far (empty when not kept).
    private(set) var body: [UInt8] = []
    /// Whether the last chunk and the trailers have been read.
    private(set) var isComplete = false

    private let maxBodyBytes: Int
    private let maxTrailerBytes: Int
    private let maxTrailerFields: Int
    /// Whether data is kept in `body` (else only counted).
    private let keep: Bool
    private var bodyCount = 0
    private var state = State.sizeLine
    /// The current line (size line or trailer), before its LF.
    private var line: [UInt8] = []
    private var trailerBytes = 0
    private var trailerFields = 0

    private enum State: Sendable {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailers
    }

    /// Longest chunk-size line (size and extensions).
    private static let maxSizeLineBytes = 4096

    init(maxBodyBytes: Int, maxTrailerBytes: Int, maxTrailerFields: Int, keep: Bool = true) {
        self.maxBodyBytes = maxBodyBytes
        self.maxTrailerBytes = maxTrailerBytes
        self.maxTrailerFields = maxTrailerFields
        self.keep = keep
    }

    /// Reads from `bytes` and returns how many it consumed (all of them until the body is complete).
    mutating func consume(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        var index = bytes.startIndex
        while index < bytes.endIndex, !isComplete {
            switch state {
            case .data(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                if keep { body.append(contentsOf: bytes[index..<index + count]) }
                bodyCount += count
                index += count
                state = count == remaining ? .dataEnd : .data(remaining: remaining - count)
            case .sizeLine, .dataEnd, .trailers:
                let byte = bytes[index]
                index += 1
                guard byte == 10 else {
                    line.append(byte)
                    if case .trailers = state {
                        trailerBytes += 1
                        if trailerBytes > maxTrailerBytes { throw HTTPError(.headerFieldsTooLarge, "the chunked body's trailer fields are too large") }
                    } else if line.count > Self.maxSizeLineBytes {
                        throw HTTPError(.badRequest, "malformed chunked body: a chunk-size line is too long")
                    }
                    continue
                }
                if line.last == 13 { line.removeLast() }
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
        return index - bytes.startIndex
    }

    /// Acts on a complete line in the current state.
    private mutating func endLine() throws(HTTPError) {
        switch state {
        case .sizeLine:
            let digits = line.prefix { $0 != 59 && $0 != 32 && $0 != 9 }
            guard !digits.isEmpty, digits.count <= 15 else { throw HTTPError(.badRequest, "malformed chunked body: invalid chunk size") }
            var size = 0
            for digit in digits {
                guard let value = FormDecoding.hexValue(digit) else { throw HTTPError(.badRequest, "malformed chunked body: invalid chunk size") }
                size = size << 4 | Int(value)
            }
            if size == 0 {
                state = .trailers
            } else {
                guard size <= maxBodyBytes - bodyCount else { throw HTTPError.bodyTooLarge(limit: maxBodyBytes) }
                state = .data(remaining: size)
            }
        case .dataEnd:
            guard line.isEmpty else { throw HTTPError(.badRequest, "malformed chunked body: chunk data longer than its size") }
            state = .sizeLine
        case .trailers:
            if line.isEmpty {
                isComplete = true
                return
            }
            trailerFields += 1
            if trailerFields > maxTrailerFields {
                throw HTTPError(.headerFieldsTooLarge, "the chunked body has more than \(maxTrailerFields) trailer fields")
            }
        case .data:
            preconditionFailure("lines are not read inside chunk data")
        }
    }
}
