// libFuzzer entry point for the WebP decoder:
//   LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-webp
//   SWIFT_BACKTRACE=enable=no .build/release/fuzz-webp -max_len=65536 CORPUS_DIR Tests/Fixtures/webp
// Any input may throw a WebPError; a crash, hang or unbounded allocation is a bug. Crashers go to
// Tests/Fixtures/webp/regressions/ with a test in WebPRegressionTests.swift.
import LiftImage

/// Small limits keep each run fast and make oversized headers fail quickly, as a service would.
private let limits = DecodingLimits(maxPixels: 4_000_000, maxDimension: 8192, maxChunkBytes: 1 << 20, maxInflatedBytes: 256 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let decoded = try? WebPDecoder.decode(bytes, limits: limits, options: .init(threads: 1)) {
        precondition(decoded.image.pixels.count == decoded.image.width * decoded.image.height * 4, "image size mismatch")
    }
    return 0
}
