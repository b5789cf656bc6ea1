import Foundation

/// One line per answered request on standard error: text (`… "POST /api/remove HTTP/1.1" 200 …`)
/// or JSON Lines (`--log-format json`).
struct AccessLog: Sendable {
    /// The line format.
    enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    let format: Format
    /// Where lines go (standard error in `lift serve`).
    let write: @Sendable (String) -> Void

    /// Writes the line for `exchange`, answered at `time`.
    func record(_ exchange: HTTPExchange, at time: Date = Date()) {
        let timestamp = Self.timestamp(time)
        let method = exchange.head?.method ?? "-"
        let target = exchange.head?.target ?? "-"
        let version = exchange.head.map { "HTTP/1.\($0.minorVersion)" } ?? "-"
        let milliseconds = (exchange.duration * 1e4).rounded() / 10
        switch format {
        case .text:
            write("\(timestamp) \(exchange.peer) \"\(method) \(Self.printable(target)) \(version)\" \(exchange.status.code) "
                  + "\(exchange.bytesReceived) \(exchange.bytesSent) \(milliseconds)ms\n")
        case .json:
            let line = Line(time: timestamp, remote: exchange.peer, method: method, target: target, version: version,
                            status: exchange.status.code, bytes_in: exchange.bytesReceived, bytes_out: exchange.bytesSent,
                            duration_ms: milliseconds)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(line) { write(String(decoding: data, as: UTF8.self) + "\n") }
        }
    }

    private struct Line: Encodable {
        var time: String
        var remote: String
        var method: String
        var target: String
        var version: String
        var status: Int
        var bytes_in: Int
        var bytes_out: Int
        var duration_ms: Double
    }

    /// The target with quotes and backslashes escaped, so a line always parses.
    private static func printable(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// ISO 8601 in UTC with milliseconds: `2026-12-04T01:20:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
