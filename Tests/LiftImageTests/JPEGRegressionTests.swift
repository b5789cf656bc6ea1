import Foundation
import LiftImage
import Testing
import TestSupport

/// Every file in `Tests/Fixtures/jpeg/regressions/` (hostile inputs and fuzzer crashers).
private let regressionFiles: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.url("jpeg/regressions").path)) ?? []
    return names.filter { $0.hasSuffix(".jpg") }.sorted()
}()

@Test func jpegRegressionFolderIsPresent() {
    #expect(regressionFiles.count >= 4)
}

@Test(arguments: regressionFiles)
func jpegRegressionInputDecodesOrThrows(_ name: String) throws {
    let bytes = try Fixtures.bytes("jpeg/regressions/\(name)")
    do {
        let decoded = try JPEGDecoder.decode(bytes)
        #expect(decoded.image.pixels.count == decoded.image.width * decoded.image.height * 4)
    } catch {
        #expect(!error.description.isEmpty)
    }
}

@Test func jpegHostileInputsFailWithTheExpectedErrors() throws {
    let huge = try Fixtures.bytes("jpeg/regressions/huge_frame_tiny_data.jpg")
    // 65000×3000 pixels in 904 bytes: the first scan needs at least two bits per block, so the
    // decoder refuses it before allocating the frame.
    guard case .truncated(marker: "SOS", _)? = Result(catching: { () throws(JPEGError) in try JPEGDecoder.decode(huge) }).failure else {
        Issue.record("a frame far larger than its data must fail before its scan")
        return
    }
    let dht = try Fixtures.bytes("jpeg/regressions/dht_counts_overflow.jpg")
    guard case .malformedSegment(marker: "DHT", _, _)? = Result(catching: { () throws(JPEGError) in try JPEGDecoder.decode(dht) }).failure else {
        Issue.record("overflowing DHT counts must be a malformed DHT")
        return
    }
    // A DC first scan repeated 909 and 1,209 times: refused at its second copy, as every coefficient
    // is coded once by a first scan (the scan cap is tested with valid scans in JPEGProgressionTests).
    for name in ["repeated_dc_scans", "too_many_scans"] {
        let bytes = try Fixtures.bytes("jpeg/regressions/\(name).jpg")
        #expect(Result(catching: { () throws(JPEGError) in try JPEGDecoder.decode(bytes) }).failure
            == .malformedSegment(marker: "SOS", offset: 300,
                                 reason: "coefficient 0 of component 1 is coded again by a first scan (Ah=0); each is coded once, then refined"))
    }
}

extension Result {
    /// The error, or nil on success.
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
