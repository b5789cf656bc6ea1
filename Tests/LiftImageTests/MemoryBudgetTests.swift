import Foundation
import LiftImage
import Testing
import TestSupport

/// The memory estimate and budget checked from an image's header, and the sizes `--max-memory` takes.
@Suite struct MemoryBudgetTests {
    @Test func sizesReadAsPeopleWriteThem() {
        #expect(MemoryBudget.parseSize("512MB") == 512_000_000)
        #expect(MemoryBudget.parseSize("8mb") == 8_000_000)
        #expect(MemoryBudget.parseSize("2GB") == 2_000_000_000)
        #expect(MemoryBudget.parseSize("1.5G") == 1_500_000_000)
        #expect(MemoryBudget.parseSize("800KB") == 800_000)
        #expect(MemoryBudget.parseSize("1GiB") == 1 << 30)
        #expect(MemoryBudget.parseSize("4096") == 4096)
        for bad in ["", "lots", "-1GB", "GB", "1e3MB", "1.2.3MB", "99999999999TB"] { #expect(MemoryBudget.parseSize(bad) == nil, "\(bad)") }
    }

    @Test func theEstimateGrowsWithThePixelsAndSaturates() {
        #expect(MemoryBudget.estimate(width: 4000, height: 3000) == 12_000_000 * MemoryBudget.bytesPerPixel + MemoryBudget.fixedBytes)
        #expect(MemoryBudget.estimate(width: 1 << 40, height: 1 << 40) == Int.max)
        #expect(MemoryBudget.machine.bytes > 0)
    }

    @Test func decodersRefuseAnImageOverTheBudgetBeforeAllocatingIt() throws {
        let header = PNGBytes.signature + PNGBytes.ihdr(width: 14000, height: 14000, colorType: 2)
            + PNGBytes.chunk("IDAT", PNGBytes.storedZlib([0])) + PNGBytes.chunk("IEND", [])
        let limits = DecodingLimits(maxMemoryBytes: 1_000_000_000)
        #expect(throws: PNGParsingError.overMemoryBudget(width: 14000, height: 14000, budget: 1_000_000_000)) {
            try PNGDecoder.decode(header, limits: limits)
        }
        #expect(PNGParsingError.overMemoryBudget(width: 14000, height: 14000, budget: 1_000_000_000).description
            == "a 14000×14000 image needs about 2.7 GB to cut out, more than the memory budget of 1.0 GB; "
            + "scale it down, or raise the budget (--max-memory) if the machine has the memory")
        let jpeg = try Fixtures.bytes("jpeg/gray.jpg")
        #expect(throws: JPEGError.self) { try JPEGDecoder.decode(jpeg, limits: DecodingLimits(maxMemoryBytes: 1000)) }
        _ = try JPEGDecoder.decode(jpeg)
    }
}
