// libFuzzer target for lift serve's request parsing: any bytes a client sends must decode into
// requests or a typed HTTPError, never crash, hang or allocate past the limits; so must a
// multipart form in a decoded body and the options in its query. Build and run (or Benchmarks/fuzz.sh):
//   LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-http
//   SWIFT_BACKTRACE=enable=no .build/release/fuzz-http CORPUS Tests/Fixtures/http
import Lift
import LiftServer

/// Small limits, so the fuzzer reaches them.
private let limits: HTTPLimits = {
    var limits = HTTPLimits()
    limits.maxRequestLineBytes = 512
    limits.maxHeaderBytes = 2048
    limits.maxHeaderFieldCount = 20
    limits.maxBodyBytes = 16384
    return limits
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    // The first byte picks how the stream is cut into reads (1…256 bytes each).
    let pieceSize = Int(data[0]) + 1
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    guard let requests = try? HTTPRequestDecoder.requests(in: bytes, pieceSize: pieceSize, limits: limits) else { return 0 }
    for (head, body) in requests {
        if let type = head.headers["Content-Type"], let boundary = try? MultipartForm.boundary(contentType: type) {
            _ = try? MultipartForm(body: body, boundary: boundary)
        }
        _ = try? RequestOptions(fields: head.query, serverModel: nil, serverQuality: .balanced)
    }
    return 0
}
