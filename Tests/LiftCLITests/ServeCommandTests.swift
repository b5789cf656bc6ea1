import Foundation
import Testing
import TestSupport

/// `lift serve` as a process: its usage errors, its listening line, and SIGTERM draining the
/// request in flight before exiting 0.
@Suite struct ServeCommandTests {
    @Test func usageErrorsExit2() throws {
        for arguments in [["serve", "--port", "70000"], ["serve", "photo.jpg"], ["serve", "--max-body", "lots"],
                          ["serve", "--quality", "best"], ["serve", "--cors-origin", "https://editor.example/app"],
                          ["serve", "--cors-header", "X Bad"], ["serve", "--model", "no-such-model"],
                          ["serve", "--log-format", "xml"], ["serve", "--workers", "0"]] {
            let result = try LiftBinary.run(arguments, timeout: 60)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardError.hasPrefix("lift serve: "), "\(arguments): \(result.standardError)")
        }
        let help = try LiftBinary.run(["serve", "--help"], timeout: 60)
        #expect(help.status == 0 && help.outputText.contains("POST /api/remove") && help.outputText.contains("--max-body SIZE"))
    }

    @Test func aTakenPortExits1() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        listen(listener, 1)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let result = try LiftBinary.run(["serve", "--port", "\(port)"], timeout: 60)
        #expect(result.status == 1)
        #expect(result.standardError.contains("cannot listen on 127.0.0.1:\(port)"))
    }

    @Test func sigtermFinishesTheRequestInFlightThenExits0() throws {
        guard SamplePhotos.weightsAvailable else {
            print(SamplePhotos.noWeights)
            return
        }
        let process = Process()
        process.executableURL = LiftBinary.url
        process.arguments = ["serve", "--port", "0"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // The listening line names the port the system chose.
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while !text.contains("\n"), Date() < deadline {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(text.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(text)")
        #expect(text.hasPrefix("lift serve: listening on http://127.0.0.1:\(port)"))

        let client = try RawClient(port: port)
        let request = rawPost("/api/remove", body: try SamplePhotos.twoAstronauts())
        client.send(Array(request.prefix(request.count / 2)))
        Thread.sleep(forTimeInterval: 0.2)
        kill(process.processIdentifier, SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(process.isRunning)
        client.send(Array(request.suffix(request.count - request.count / 2)))
        let answer = try #require(client.readResponse())
        #expect(answer.status == 200 && answer.headers["connection"] == "close")
        let exitDeadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < exitDeadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!process.isRunning && process.terminationStatus == 0)
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("\"POST /api/remove HTTP/1.1\" 200") && rest.contains("lift serve: stopped"), "\(rest)")
    }
}
