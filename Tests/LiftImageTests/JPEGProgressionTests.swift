import Foundation
import LiftImage
import Testing
import TestSupport

/// The scan rules and the decoding work budget (`JPEGProgression`, `DecodingLimits.maxCoefficientPasses`)
/// on flat files made by `JPEGBytes`: a valid progression decodes, a scan that revisits what it may not
/// is refused before it is decoded, and a file repeating a refinement scan costs nothing.
@Suite struct JPEGProgressionTests {
    private typealias Scan = JPEGBytes.Scan

    private func decode(_ bytes: [UInt8], limits: DecodingLimits = .default) -> Result<JPEGImage, JPEGError> {
        Result { () throws(JPEGError) in try JPEGDecoder.decode(bytes, limits: limits) }
    }

    /// The offset of the `n`-th SOS marker (0-based).
    private func sosOffset(_ n: Int, in bytes: [UInt8]) -> Int {
        (0 ..< bytes.count - 1).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }[n]
    }

    @Test(arguments: [1, 3]) func validProgressionsAndSequentialFramesDecode(components: Int) throws {
        let progressive = try decode(JPEGBytes.file(width: 40, height: 24, components: components,
                                                    scans: JPEGBytes.validProgression(components: components))).get()
        #expect(progressive.image.width == 40 && progressive.image.pixels.allSatisfy { $0 == 128 || $0 == 255 })
        let sequential = try decode(JPEGBytes.file(width: 40, height: 24, components: components, progressive: false,
                                                   scans: [.sequential(Array(1 ... components))])).get()
        #expect(sequential.info.scanCount == 1)
    }

    @Test func aRepeatedACRefinementIsRefusedAtItsSecondCopy() {
        // The trial's file: one AC refinement scan (Ss 1, Se 63, Ah 1, Al 0) repeated 990 times over
        // a 16-megapixel frame, 25 KB of scans that took 47 s to decode.
        let scans = JPEGBytes.validProgression() + Array(repeating: Scan(start: 1, end: 63, high: 1), count: 990)
        let bytes = JPEGBytes.file(width: 4000, height: 4000, scans: scans)
        #expect(bytes.count < 100_000)
        let clock = ContinuousClock(), started = clock.now
        #expect(decode(bytes).failure == .malformedSegment(marker: "SOS", offset: sosOffset(4, in: bytes),
                                                           reason: "Ah=1 refines coefficient 1 of component 1, whose scans so far coded it down to bit 0"))
        #expect(clock.now - started < .seconds(5))
    }

    @Test func scansOutOfTheirOrderAreRefused() {
        let dc = Scan(start: 0, end: 0, low: 1)
        let cases: [([Scan], Int, String)] = [
            ([dc, dc], 1, "coefficient 0 of component 1 is coded again by a first scan (Ah=0); each is coded once, then refined"),
            ([dc, Scan(start: 1, end: 9), Scan(start: 5, end: 63)], 2,
             "coefficient 5 of component 1 is coded again by a first scan (Ah=0); each is coded once, then refined"),
            ([dc, Scan(start: 1, end: 63, high: 1)], 1, "Ah=1 refines coefficient 1 of component 1, whose scans so far are none"),
            ([Scan(start: 0, end: 0, low: 2), Scan(start: 0, end: 0, high: 1)], 1,
             "Ah=1 refines coefficient 0 of component 1, whose scans so far coded it down to bit 2"),
            ([Scan(start: 1, end: 63)], 0, "AC scan of component 1 before its DC scan"),
        ]
        for (scans, refused, reason) in cases {
            let bytes = JPEGBytes.file(width: 16, height: 16, scans: scans)
            #expect(decode(bytes).failure == .malformedSegment(marker: "SOS", offset: sosOffset(refused, in: bytes), reason: reason))
        }
        let twice = JPEGBytes.file(width: 16, height: 16, progressive: false, scans: [.sequential(), .sequential()])
        #expect(decode(twice).failure == .malformedSegment(marker: "SOS", offset: sosOffset(1, in: twice),
                                                           reason: "component 1 is in a second scan; a sequential frame codes each component once"))
    }

    @Test func theWorkBudgetRefusesTheScanThatWouldPassIt() throws {
        let bytes = JPEGBytes.file(width: 16, height: 16, scans: JPEGBytes.validProgression())
        // 4 blocks of 64 coefficients: one pass is 256 visits; the DC scans make 4 + 4, the AC first
        // scan would make 260 (and the refinement 512, two passes).
        #expect(decode(bytes, limits: DecodingLimits(maxCoefficientPasses: 1)).failure
            == .limitExceeded(what: "decoding work in coefficient visits (1 per coefficient)", value: 260, limit: 256))
        #expect(try decode(bytes, limits: DecodingLimits(maxCoefficientPasses: 2)).get().info.scanCount == 4)
        #expect(DecodingLimits.default.maxCoefficientPasses == 16)
    }

    @Test func theScanCountIsCappedEvenWhenEveryScanIsValid() {
        // Single-coefficient scans of three components, each coded from bit 13 down: 2,688 valid scans.
        var scans: [Scan] = []
        for component in 1 ... 3 {
            for k in 0 ... 63 {
                scans.append(Scan(components: [component], start: k, end: k, low: 13))
                scans += (1 ... 13).reversed().map { Scan(components: [component], start: k, end: k, high: $0, low: $0 - 1) }
            }
        }
        let bytes = JPEGBytes.file(width: 8, height: 8, components: 3, scans: Array(scans.prefix(JPEGDecoder.maxScans + 1)))
        #expect(decode(bytes).failure == .limitExceeded(what: "scan count", value: JPEGDecoder.maxScans + 1, limit: JPEGDecoder.maxScans))
    }
}
