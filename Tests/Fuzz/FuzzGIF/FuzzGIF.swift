// libFuzzer entry point for the GIF decoder:
//   LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-gif
//   SWIFT_BACKTRACE=enable=no .build/release/fuzz-gif -max_len=20000 CORPUS_DIR Tests/Fixtures/gif
// Any input may throw a GIFError; a crash, hang or unbounded allocation is a bug. Crashers go to
// Tests/Fixtures/gif/regressions/ with a test in GIFDecoderTests.swift.
import LiftImage

/// Small limits keep each run fast and make oversized headers fail quickly, as a service would.
private let limits = DecodingLimits(maxPixels: 4_000_000, maxDimension: 8192, maxChunkBytes: 1 << 20, maxInflatedBytes: 64 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The first frame, and a later one (the last byte picks which) to exercise disposal and compositing.
    for frame in [0, Int(bytes.last ?? 0) % 8] {
        if let image = try? GIFDecoder.decode(bytes, frame: frame, limits: limits) {
            precondition(image.pixels.count == image.width * image.height * 4, "image size mismatch")
        }
    }
    if let info = try? GIFDecoder.readInfo(bytes) { precondition(info.frameCount >= 1, "a GIF with an image has a frame") }
    return 0
}
