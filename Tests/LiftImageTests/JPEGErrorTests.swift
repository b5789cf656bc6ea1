import Foundation
import LiftImage
import Testing
import TestSupport

/// Offset of the first `FF code` marker in `bytes`.
private func markerOffset(_ code: UInt8, in bytes: [UInt8]) -> Int? {
    (0 ..< bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == code }
}

/// Decodes and returns the error, or nil when decoding succeeded.
private func decodeError(_ bytes: [UInt8], limits: DecodingLimits = .default) -> JPEGError? {
    do {
        _ = try JPEGDecoder.decode(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// A minimal header: SOI, then a frame header with the given marker, precision and size.
private func syntheticFrame(marker: UInt8, precision: UInt8 = 8, width: Int = 8, height: Int = 8) -> [UInt8] {
    [0xFF, 0xD8, 0xFF, marker, 0, 11, precision, UInt8(height >> 8), UInt8(height & 255),
     UInt8(width >> 8), UInt8(width & 255), 1, 1, 0x11, 0, 0xFF, 0xD9]
}

@Test func jpegRejectsNonJPEG() {
    #expect(decodeError([]) == .notJPEG)
    #expect(decodeError([0x89, 0x50, 0x4E, 0x47]) == .notJPEG)
    #expect(decodeError([0xFF, 0xD8]) == .noImageData(offset: 2))
    #expect(decodeError([0xFF, 0xD8, 0xFF, 0xD9]) == .noImageData(offset: 2))
}

@Test func jpegNamesUnsupportedCodings() {
    #expect(decodeError(syntheticFrame(marker: 0xC9)) == .unsupported(marker: "SOF9", offset: 2, feature: "arithmetic coding"))
    #expect(decodeError(syntheticFrame(marker: 0xCA)) == .unsupported(marker: "SOF10", offset: 2, feature: "arithmetic coding"))
    #expect(decodeError(syntheticFrame(marker: 0xC3)) == .unsupported(marker: "SOF3", offset: 2, feature: "lossless JPEG"))
    #expect(decodeError(syntheticFrame(marker: 0xC1, precision: 12)) == .unsupported(marker: "SOF1", offset: 2, feature: "12-bit samples"))
    #expect(decodeError(syntheticFrame(marker: 0xC5)) == .unsupported(marker: "SOF5", offset: 2, feature: "hierarchical JPEG"))
    #expect(decodeError(syntheticFrame(marker: 0xC0, height: 0)) == .unsupported(marker: "SOF0", offset: 2, feature: "height 0 (defined later by DNL)"))
    let message = JPEGError.unsupported(marker: "SOF9", offset: 2, feature: "arithmetic coding").description
    #expect(message.contains("arithmetic coding") && message.contains("SOF9") && message.contains("byte 2"))
}

@Test func jpegChecksLimitsBeforeAllocating() throws {
    let bytes = try Fixtures.bytes("jpeg/large_420.jpg")
    #expect(decodeError(bytes, limits: DecodingLimits(maxPixels: 1000)) == .limitExceeded(what: "pixel count", value: 320 * 240, limit: 1000))
    #expect(decodeError(bytes, limits: DecodingLimits(maxDimension: 100)) == .limitExceeded(what: "dimension", value: 320, limit: 100))
    guard case .limitExceeded(what: "decoded size in bytes", _, 10000)? = decodeError(bytes, limits: DecodingLimits(maxInflatedBytes: 10000)) else {
        Issue.record("expected the decoded-size limit")
        return
    }
    // A 65535 x 65535 frame header is refused by the default pixel limit without allocating.
    #expect(decodeError(syntheticFrame(marker: 0xC0, width: 65535, height: 65535))
        == .limitExceeded(what: "pixel count", value: 65535 * 65535, limit: DecodingLimits.default.maxPixels))
    // Inside the pixel limit, but the file is far too small to fill the frame's first scan (one bit
    // per block at least): refused at that scan, before ~880 MB of coefficients would be allocated
    // (so before the decoded-size limit, set below that, is even consulted).
    let belowTheFrame = DecodingLimits(maxInflatedBytes: 100 << 20)
    for name in ["progressive_420", "q75_420"] {
        var claiming = try Fixtures.bytes("jpeg/\(name).jpg")
        let sof = try #require(markerOffset(name == "q75_420" ? 0xC0 : 0xC2, in: claiming))
        claiming.replaceSubrange(sof + 5 ..< sof + 9, with: [0x36, 0xB0, 0x36, 0xB0]) // 14000 × 14000
        let sos = try #require(markerOffset(0xDA, in: claiming))
        #expect(decodeError(claiming, limits: belowTheFrame) == .truncated(marker: "SOS", offset: sos))
    }
    // A progressive file whose first scan is an AC band (coverable by a few end-of-band runs, so it
    // would pass that size check) is refused before anything is allocated.
    var acFirst = try Fixtures.bytes("jpeg/progressive_420.jpg")
    let sos = try #require(markerOffset(0xDA, in: acFirst))
    let headerEnd = sos + 2 + Int(acFirst[sos + 2]) << 8 + Int(acFirst[sos + 3])
    // One component (the first of the DC scan's), spectral band 1…5, no successive approximation.
    acFirst.replaceSubrange(sos ..< headerEnd, with: [0xFF, 0xDA, 0, 8, 1, acFirst[sos + 5], acFirst[sos + 6], 1, 5, 0])
    #expect(decodeError(acFirst) == .malformedSegment(marker: "SOS", offset: sos, reason: "AC scan of component 1 before its DC scan"))
}

@Test func jpegTruncatedSegmentsNameMarkerAndOffset() throws {
    let bytes = try Fixtures.bytes("jpeg/q75_420.jpg")
    for (code, name) in [(UInt8(0xDB), "DQT"), (0xC0, "SOF0"), (0xC4, "DHT"), (0xDA, "SOS")] {
        let offset = try #require(markerOffset(code, in: bytes))
        #expect(decodeError(Array(bytes[..<(offset + 5)])) == .truncated(marker: name, offset: offset))
    }
    // Cut inside the entropy-coded data.
    let sos = try #require(markerOffset(0xDA, in: bytes))
    #expect(decodeError(Array(bytes[..<(sos + 200)])) == .truncated(marker: "SOS", offset: sos))
}

@Test(arguments: ["q75_420", "progressive_420", "restart_progressive_420", "gray_progressive", "cmyk"])
func jpegEveryTruncationThrowsOrDecodes(_ name: String) throws {
    let bytes = try Fixtures.bytes("jpeg/\(name).jpg")
    let sos = try #require(markerOffset(0xDA, in: bytes))
    let step = max(1, bytes.count / 300)
    for length in stride(from: 0, to: bytes.count - 2, by: step) {
        let error = decodeError(Array(bytes[..<length]))
        // Everything up to the first scan's data is needed; later cuts may leave a partial
        // progressive image, which libjpeg would also show, but must never crash or hang.
        if length < sos + 20 { #expect(error != nil, "prefix of \(length) bytes decoded") }
    }
}

@Test func jpegMalformedSegmentsAreTyped() throws {
    let bytes = try Fixtures.bytes("jpeg/q75_420.jpg")
    let dqt = try #require(markerOffset(0xDB, in: bytes))
    var badLength = bytes
    badLength[dqt + 2] = 0; badLength[dqt + 3] = 1
    #expect(decodeError(badLength) == .malformedSegment(marker: "DQT", offset: dqt, reason: "length 1 is below 2"))

    var badTableID = bytes
    badTableID[dqt + 4] = 0x07
    guard case .malformedSegment(marker: "DQT", offset: dqt, _)? = decodeError(badTableID) else {
        Issue.record("expected a DQT error")
        return
    }

    // Four codes of length 1 cannot exist.
    let dht = try #require(markerOffset(0xC4, in: bytes))
    var badCounts = bytes
    badCounts[dht + 5] = 4
    guard case .malformedSegment(marker: "DHT", offset: dht, _)? = decodeError(badCounts) else {
        Issue.record("expected a DHT error")
        return
    }

    // Codes 0, 10, 110, 111: the all-ones code of length 3 is not allowed (libjpeg rejects it too).
    let allOnes: [UInt8] = [0xFF, 0xC4, 0, 23, 0x00, 1, 1, 2] + [UInt8](repeating: 0, count: 13) + [0, 1, 2, 3]
    #expect(decodeError(Array(bytes[..<2]) + allOnes + Array(bytes[2...]))
        == .malformedSegment(marker: "DHT", offset: 2, reason: "table 0 has more codes than its lengths allow (the all-ones code is reserved)"))

    // A scan selecting Huffman tables that were never defined.
    let sos = try #require(markerOffset(0xDA, in: bytes))
    var missing = bytes
    missing[sos + 6] = 0x33
    #expect(decodeError(missing) == .missingTable(marker: "SOS", offset: sos, kind: "DC Huffman", id: 3))
}

@Test func jpegMissingRestartMarkerIsCorruptData() throws {
    let bytes = try Fixtures.bytes("jpeg/restart_blocks_420.jpg")
    let sos = try #require(markerOffset(0xDA, in: bytes))
    let rst = try #require((sos ..< bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD0 })
    var broken = bytes
    broken[rst + 1] = 0xD9
    #expect(decodeError(broken) == .corruptData(marker: "SOS", offset: rst, reason: "expected a restart marker, found EOI"))
}

@Test func jpegGarbageNeverHangs() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt8 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
    for _ in 0 ..< 200 {
        let body = (0 ..< 400).map { _ in next() }
        #expect(decodeError([0xFF, 0xD8] + body) != nil)
    }
}

@Test(arguments: ["q75_420", "progressive_420", "restart_progressive_opencv", "opencv_411_progressive", "cmyk_progressive"])
func jpegMutatedFilesThrowOrDecode(_ name: String) throws {
    let original = try Fixtures.bytes("jpeg/\(name).jpg")
    var state: UInt64 = 12345
    func next() -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int(truncatingIfNeeded: state >> 33)
    }
    for _ in 0 ..< 150 {
        var bytes = original
        for _ in 0 ..< 1 + next() % 4 { bytes[2 + next() % (bytes.count - 2)] = UInt8(truncatingIfNeeded: next()) }
        do {
            let decoded = try JPEGDecoder.decode(bytes)
            #expect(decoded.image.pixels.count == decoded.image.width * decoded.image.height * 4)
        } catch {
            #expect(!error.description.isEmpty)
        }
    }
}
