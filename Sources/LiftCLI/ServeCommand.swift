import Dispatch
import Foundation
import Lift
import LiftPipeline
import LiftServer

/// `lift serve [options]`: the HTTP API and web page (`LiftServer`). Loads the model once, listens,
/// logs one line per request on standard error, and on SIGTERM or Ctrl-C stops accepting, finishes
/// the requests in flight and exits 0. Exit 1 when the model cannot be loaded or the address bound,
/// 2 for a usage error.
public enum ServeCommand: Subcommand {
    public static let name = "serve"
    /// SIGTERM and Ctrl-C drain the server instead of ending the process.
    public static let handlesSignals = true

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        let configuration: ServeConfiguration
        do throws(UsageError) {
            let parsed = try ArgumentParser(options: options).parse(arguments)
            if parsed.flag("help") { return environment.printHelp(help) }
            guard parsed.positionals.isEmpty else { throw .invalidOutput("lift serve takes no file arguments; photos arrive as requests") }
            configuration = try serveConfiguration(parsed, variables: ProcessInfo.processInfo.environment)
        } catch {
            return environment.usageFailure(name, error.description)
        }
        if let model = configuration.model {
            do throws(UsageError) { try CutoutAction.checkModelExists(model) } catch { return environment.usageFailure(name, error.description) }
        }

        HeapTuning.limitArenas(configuration.workers)
        let service: LiftService
        let server: HTTPServer
        do {
            service = try LiftService(configuration: configuration, writeLog: environment.writeStandardError)
            server = try HTTPServer(settings: configuration.http, service: service)
        } catch {
            environment.writeStandardError("lift serve: \(TerminalText.escaped("\(error)"))\n")
            return 1
        }
        service.attach(to: server)

        // SIGTERM and Ctrl-C drain; a second Ctrl-C ends at once; SIGHUP ends as it would have. Handled
        // on a thread of their own, so no flood or busy worker delays them.
        let stopRequested = DispatchSemaphore(value: 0)
        let watching = SignalCleanup.watch { number in
            if number == SIGHUP { AtomicFile.removeTemporaryFiles(thenRaise: number) }
            if server.isDraining, number == SIGINT { exit(130) }
            stopRequested.signal()
        }
        do {
            guard watching else { throw ServerError.cannotStartThread(reason: "the signal-handling thread could not be started") }
            try server.start()
        } catch {
            environment.writeStandardError("lift serve: \(TerminalText.escaped("\(error)"))\n")
            return 1
        }
        let shown = configuration.http.host.contains(":") ? "[\(configuration.http.host)]" : configuration.http.host
        environment.writeStandardError("lift serve: listening on http://\(shown):\(server.port) (model \(service.modelName), \(configuration.quality.rawValue), "
                              + "\(configuration.workers) at once, \(configuration.queueCapacity) queued)\n")
        if !["127.0.0.1", "::1", "localhost"].contains(configuration.http.host), configuration.token == nil {
            environment.writeStandardError("lift serve: warning: listening on \(configuration.http.host) without --token: anyone who can reach the port can use it\n")
        }
        if let note = SubjectLifter.slowBuildNote { environment.writeStandardError("lift serve: note: \(note)\n") }
        stopRequested.wait()
        environment.writeStandardError("lift serve: stopping: no new connections, finishing \(server.openConnections) open\n")
        let drained = server.stop(timeout: configuration.drainTimeout)
        environment.writeStandardError(drained ? "lift serve: stopped\n" : "lift serve: stopped with requests unfinished after --drain-timeout\n")
        return drained ? 0 : 1
    }

    /// The configuration `parsed` asks for; the token may also come from `LIFT_SERVE_TOKEN`.
    package static func serveConfiguration(_ parsed: ParsedArguments, variables: [String: String]) throws(UsageError) -> ServeConfiguration {
        var configuration = ServeConfiguration()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        configuration.workers = cores
        if let host = try parsed.value("host") {
            guard !host.isEmpty else { throw .invalidValue(option: "--host", value: host, expected: "an address such as 127.0.0.1, ::1 or 0.0.0.0") }
            configuration.http.host = host
        }
        if let text = try parsed.value("port") {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw .invalidValue(option: "--port", value: text, expected: "a port number 0…65535 (0: any free port)")
            }
            configuration.http.port = port
        }
        if let name = try parsed.value("model") { configuration.model = ModelName(argument: name) }
        if let level = try parsed.value("quality") {
            guard let quality = Quality(rawValue: level) else {
                throw .invalidValue(option: "--quality", value: level, expected: Quality.allCases.map(\.rawValue).joined(separator: ", "))
            }
            configuration.quality = quality
        }
        if let text = try parsed.value("threads") { configuration.threads = try count(text, option: "--threads", range: 1...1024) }
        if let text = try parsed.value("workers") { configuration.workers = try count(text, option: "--workers", range: 1...256) }
        if let text = try parsed.value("queue") { configuration.queueCapacity = try count(text, option: "--queue", range: 0...100_000) }
        if let text = try parsed.value("max-connections") { configuration.http.maxConnections = try count(text, option: "--max-connections", range: 1...100_000) }
        if let text = try parsed.value("max-body") {
            guard let bytes = MemoryBudget.parseSize(text), bytes >= 1024, bytes <= 2_000_000_000 else {
                throw .invalidValue(option: "--max-body", value: text, expected: "a size from 1KB to 2GB, such as 8MB or 512KB")
            }
            configuration.http.limits.maxBodyBytes = bytes
        }
        for (option, keyPath) in [("read-timeout", \ServeConfiguration.http.readTimeout), ("idle-timeout", \.http.idleTimeout),
                                  ("drain-timeout", \.drainTimeout)] {
            guard let text = try parsed.value(option) else { continue }
            guard let seconds = Double(text), seconds > 0, seconds <= 86400 else {
                throw .invalidValue(option: "--\(option)", value: text, expected: "a number of seconds, more than 0 and at most 86400")
            }
            configuration[keyPath: keyPath] = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        configuration.limits = try LimitOptions.limits(from: parsed)
        if let token = try parsed.value("token") ?? variables["LIFT_SERVE_TOKEN"] {
            guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
                throw .invalidValue(option: "--token", value: "…", expected: "a non-empty token of printable ASCII without spaces")
            }
            configuration.token = token
        }
        for origin in parsed.values["cors-origin"] ?? [] {
            guard origin == "*" || ((origin.hasPrefix("http://") || origin.hasPrefix("https://")) && !origin.dropFirst(8).contains("/")) else {
                throw .invalidValue(option: "--cors-origin", value: origin, expected: "an origin such as https://editor.example.com (scheme, host, optional port), or * for any")
            }
            configuration.corsOrigins.append(origin)
        }
        for name in parsed.values["cors-header"] ?? [] {
            guard CORSPolicy.isHeaderName(name) else {
                throw .invalidValue(option: "--cors-header", value: name, expected: "a header name such as X-Editor-Session")
            }
            configuration.corsHeaders.append(name)
        }
        if let format = try parsed.value("log-format") {
            guard let value = ServeConfiguration.LogFormat(rawValue: format) else {
                throw .invalidValue(option: "--log-format", value: format, expected: "text or json")
            }
            configuration.logFormat = value
        }
        return configuration
    }

    /// A whole number within `range`.
    private static func count(_ text: String, option: String, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw .invalidValue(option: option, value: text, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `serve`'s options, as its `--help` lists them.
    package static let options: [OptionSpec] = [
        OptionSpec("host", value: "ADDR", help: "address to listen on (default 127.0.0.1; 0.0.0.0 or :: for every interface)"),
        OptionSpec("port", short: "p", value: "N", help: "TCP port (default 7000; 0 picks a free one, printed at start)"),
        OptionSpec("model", short: "m", value: "NAME", help: "model for requests that name none (as lift --model; requests may name shipped models)"),
        OptionSpec("quality", value: "LEVEL", help: "fast | balanced | accurate for requests that name none (default balanced)"),
        OptionSpec("workers", value: "N", help: "photos processed at once (default: the number of cores)"),
        OptionSpec("threads", short: "j", value: "N", help: "threads for each photo's model and mask stages (default: all cores)"),
        OptionSpec("queue", value: "N", help: "photos that may wait for a worker; beyond, 503 with Retry-After (default 32)"),
        OptionSpec("max-body", value: "SIZE", help: "largest request body, e.g. 8MB or 512KB; larger gets 413 (default 32MB)"),
    ] + LimitOptions.specs + [
        OptionSpec("max-connections", value: "N", help: "connections open at once; more get 503 (default 256)"),
        OptionSpec("read-timeout", value: "SECONDS", help: "time for a whole request to arrive, else 408 (default 30)"),
        OptionSpec("idle-timeout", value: "SECONDS", help: "time a kept-alive connection waits for its next request (default 15)"),
        OptionSpec("drain-timeout", value: "SECONDS", help: "on SIGTERM, time to finish requests in flight (default 30)"),
        OptionSpec("token", value: "T", help: "require 'Authorization: Bearer T' on /api/* and /metrics (or set LIFT_SERVE_TOKEN)"),
        OptionSpec("cors-origin", value: "ORIGIN", help: "let a web page from ORIGIN call the API (repeat for several; * for any, never with cookies; default none)"),
        OptionSpec("cors-header", value: "NAME", help: "let such pages also send the request header NAME (besides Authorization, Content-Type, traceparent, …)"),
        OptionSpec("log-format", value: "FMT", help: "access log on standard error: text (default) or json"),
        OptionSpec("help", short: "h", help: "show this help"),
    ]

    /// `lift serve --help`.
    static let help = HelpText.subcommand(
        usage: "lift serve [--host ADDR] [--port N] [--model NAME] [--quality LEVEL] [--token T] [options]",
        summary: ["The HTTP API and web page: one process, the model loaded once, photos processed concurrently.",
                  "  GET  /               the web page: drop, paste or pick a photo, click a subject, download",
                  "  POST /api/remove     the cut-out PNG (the photo as the body, or the multipart form field 'file')",
                  "  POST /api/mask       the grey mask PNG;   POST /api/analyze   the subjects as JSON",
                  "  GET  /healthz        liveness;   GET /metrics   Prometheus;   GET /openapi.json   the API",
                  "A request's options have the CLI's names, as query or form fields, e.g.",
                  "  curl --data-binary @photo.jpg 'http://127.0.0.1:7000/api/remove?background=white&crop=true' -o cutout.png",
                  "Lift never fetches URLs for a client. SIGTERM or Ctrl-C: stop accepting, finish the requests in flight, exit 0."],
        options: options,
        exitStatus: "0 stopped after draining   1 the model could not be loaded, the address not bound, or requests were cut off   2 usage error")
}
