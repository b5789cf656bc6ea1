import Foundation
import Synchronization

/// Counters and a latency histogram for `GET /metrics`, in Prometheus' text exposition format 0.0.4:
/// requests by endpoint and status, request duration by endpoint, bytes in and out, and the gauges
/// (queue depth, photos in flight, open connections) read when scraped.
final class ServerMetrics: Sendable {
    /// The endpoints metrics are kept for; any other path counts as `other`.
    static let endpoints = ["/", "/healthz", "/metrics", "/openapi.json", "/api/remove", "/api/mask", "/api/analyze", "other"]
    /// Upper bounds of the duration histogram's buckets, seconds.
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private struct Histogram {
        var counts = [Int](repeating: 0, count: ServerMetrics.buckets.count)
        var sum = 0.0
        var count = 0
    }

    private struct State {
        var requests: [String: [Int: Int]] = [:]
        var durations: [String: Histogram] = [:]
        var bytesReceived = 0
        var bytesSent = 0
    }

    private let state = Mutex(State())

    /// Records one answered request.
    func record(_ exchange: HTTPExchange) {
        let endpoint = Self.endpoint(for: exchange.head?.path)
        state.withLock { state in
            state.requests[endpoint, default: [:]][exchange.status.code, default: 0] += 1
            var histogram = state.durations[endpoint] ?? Histogram()
            for (index, bound) in Self.buckets.enumerated() where exchange.duration <= bound { histogram.counts[index] += 1 }
            histogram.sum += exchange.duration
            histogram.count += 1
            state.durations[endpoint] = histogram
            state.bytesReceived += exchange.bytesReceived
            state.bytesSent += exchange.bytesSent
        }
    }

    /// The label a path is counted under.
    static func endpoint(for path: String?) -> String {
        guard let path else { return "other" }
        return endpoints.contains(path) ? path : "other"
    }

    /// The exposition text, with the gauges' current values.
    func text(queueDepth: Int, inFlight: Int, connections: Int, workers: Int, queueCapacity: Int) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP lift_http_requests_total HTTP requests answered, by endpoint and status code.")
        lines.append("# TYPE lift_http_requests_total counter")
        for endpoint in snapshot.requests.keys.sorted() {
            for (status, count) in snapshot.requests[endpoint, default: [:]].sorted(by: { $0.key < $1.key }) {
                lines.append("lift_http_requests_total{endpoint=\"\(endpoint)\",status=\"\(status)\"} \(count)")
            }
        }
        lines.append("# HELP lift_http_request_duration_seconds Time from a request's first byte to its answer's last, by endpoint.")
        lines.append("# TYPE lift_http_request_duration_seconds histogram")
        for endpoint in snapshot.durations.keys.sorted() {
            guard let histogram = snapshot.durations[endpoint] else { continue }
            for (index, bound) in Self.buckets.enumerated() {
                lines.append("lift_http_request_duration_seconds_bucket{endpoint=\"\(endpoint)\",le=\"\(Self.number(bound))\"} \(histogram.counts[index])")
            }
            lines.append("lift_http_request_duration_seconds_bucket{endpoint=\"\(endpoint)\",le=\"+Inf\"} \(histogram.count)")
            lines.append("lift_http_request_duration_seconds_sum{endpoint=\"\(endpoint)\"} \(Self.number(histogram.sum))")
            lines.append("lift_http_request_duration_seconds_count{endpoint=\"\(endpoint)\"} \(histogram.count)")
        }
        lines.append("# HELP lift_http_received_bytes_total Bytes of requests received (heads and bodies).")
        lines.append("# TYPE lift_http_received_bytes_total counter")
        lines.append("lift_http_received_bytes_total \(snapshot.bytesReceived)")
        lines.append("# HELP lift_http_sent_bytes_total Bytes of answers sent (heads and bodies).")
        lines.append("# TYPE lift_http_sent_bytes_total counter")
        lines.append("lift_http_sent_bytes_total \(snapshot.bytesSent)")
        for (name, help, value) in [
            ("lift_queue_depth", "Photos waiting for a worker.", queueDepth),
            ("lift_queue_capacity", "Photos that may wait before requests are refused with 503 (--queue).", queueCapacity),
            ("lift_in_flight", "Photos being processed.", inFlight),
            ("lift_workers", "Photos processed at once (--workers).", workers),
            ("lift_connections_open", "Client connections open.", connections),
        ] {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) gauge")
            lines.append("\(name) \(value)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A sample value as Prometheus reads it (`0.005`, `1`, `2.5`).
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
