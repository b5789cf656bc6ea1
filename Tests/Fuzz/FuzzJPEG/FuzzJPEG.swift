// libFuzzer entry point for the JPEG decoder:
//   LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-jpeg
//   SWIFT_BACKTRACE=enable=no .build/release/fuzz-jpeg -max_len=20000 CORPUS_DIR Tests/Fixtures/jpeg
// Any input may throw a JPEGError; a crash, hang or unbounded allocation is a bug. Crashers go to
// Tests/Fixtures/jpeg/regressions/ with a test in JPEGRegressionTests.swift.
import LiftImage

/// Small limits keep each run fast and make oversized headers fail quickly, as a service would.
private let limits = DecodingLimits(maxPixels: 4_000_000, maxDimension: 8192, maxChunkBytes: 1 << 20, maxInflatedBytes: 256 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let decoded = try? JPEGDecoder.decode(bytes, limits: limits) {
        precondition(decoded.image.pixels.count == decoded.image.width * decoded.image.height * 4, "image size mismatch")
    }
    return 0
}
