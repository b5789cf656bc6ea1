// libFuzzer target for the PNG decoder (and the encoder on what it decodes).
// Build: LIFT_FUZZ=1 swift build -c release --sanitize fuzzer --product fuzz-png
// Run:   SWIFT_BACKTRACE=enable=no .build/release/fuzz-png -max_len=65536 -rss_limit_mb=2048 CORPUS_DIR
// Seed CORPUS_DIR with Tests/Fixtures/png/*.png. A crasher becomes a fixture and a test in
// PNGInvalidInputTests.swift (none so far; the JPEG target keeps its crashers in jpeg/regressions/).
import LiftImage

/// Limits small enough that a fuzzed header cannot make one run allocate much.
private let limits = DecodingLimits(maxPixels: 4 << 20, maxDimension: 1 << 14, maxChunkBytes: 1 << 20, maxInflatedBytes: 64 << 20)

/// CRC-32 (the PNG/zlib polynomial), table-driven.
private let crcTable: [UInt32] = (0..<256).map { n in
    (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
}

/// `bytes` with every chunk's CRC recomputed, so mutations reach the code behind the CRC check.
private func withFixedCRCs(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes, offset = 8
    while offset + 12 <= out.count {
        let length = Int(out[offset]) << 24 | Int(out[offset + 1]) << 16 | Int(out[offset + 2]) << 8 | Int(out[offset + 3])
        guard length <= out.count - offset - 12 else { break }
        var crc: UInt32 = 0xFFFF_FFFF
        for b in out[(offset + 4)..<(offset + 8 + length)] { crc = crcTable[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8) }
        crc = ~crc
        for k in 0..<4 { out[offset + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        offset += 12 + length
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    check(input)
    check(withFixedCRCs(input))
    return 0
}

/// Decodes `bytes` every way the API allows; whatever decodes must re-encode to the same pixels.
private func check(_ bytes: [UInt8]) {
    _ = try? PNGDecoder.readInfo(bytes, limits: limits)
    guard let decoded = try? PNGDecoder.decode(bytes, limits: limits) else { return }
    if let wide = try? PNGDecoder.decode16(bytes, limits: limits) {
        precondition(wide.info == decoded.info, "8- and 16-bit decodes disagree on the header")
    }
    // What decodes must survive a round trip through the encoder exactly.
    if decoded.image.pixelCount <= 1 << 16,
       let png = try? PNGEncoder.encode(decoded.image, options: .init(level: 1, reduceColorType: true)) {
        let again = try? PNGDecoder.decode(png)
        precondition(again?.image == decoded.image, "round trip changed the pixels")
    }
}
