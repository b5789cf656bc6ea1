/// Bounds on what one request may send, checked while it is read, before anything is allocated for it.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request line (`POST /api/remove?… HTTP/1.1`), bytes; longer → 414.
    public var maxRequestLineBytes = 8 * 1024
    /// Most header fields; more → 431.
    public var maxHeaderFieldCount = 100
    /// Longest head (request line and every field), bytes; longer → 431. Also bounds chunked trailers.
    public var maxHeaderBytes = 32 * 1024
    /// Largest body, bytes (after chunked decoding); larger → 413.
    public var maxBodyBytes = 32 * 1_000_000
    /// Most trailer fields after a chunked body (read and dropped); more → 431.
    public var maxTrailerFieldCount = 8

    /// The defaults: 8 KiB request line, 100 fields, 32 KiB head, 32 MB body, 8 trailer fields.
    public init() {}
}
