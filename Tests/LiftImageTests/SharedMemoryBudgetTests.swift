import Foundation
import LiftImage
import Testing
import TestSupport

/// `SharedMemoryBudget`: photos in work reserve their estimate from one budget, a photo that does not
/// fit waits for room (or gives up after its patience), and sizes are read from headers alone.
@Suite struct SharedMemoryBudgetTests {
    @Test func reservationsWaitForRoomAndGiveUpAfterTheirPatience() throws {
        let budget = SharedMemoryBudget()
        let first = try #require(budget.reserve(600, of: 1000))
        #expect(budget.reservedBytes == 600)
        let started = Date()
        #expect(budget.reserve(500, of: 1000, waitingAtMost: .milliseconds(100)) == nil)
        #expect(Date().timeIntervalSince(started) >= 0.09)
        // A waiter gets its room when the first is released.
        let waiter = Thread {
            let second = budget.reserve(500, of: 1000)
            second?.release()
        }
        waiter.start()
        Thread.sleep(forTimeInterval: 0.05)
        first.release()
        first.release()  // once only
        let deadline = Date().addingTimeInterval(5)
        while budget.reservedBytes != 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(budget.reservedBytes == 0)
        // Over the whole budget alone: nothing reserved (the decoder refuses it with its sentence).
        #expect(budget.reserve(2000, of: 1000)?.bytes == 0)
        #expect(budget.reservedBytes == 0)
    }

    @Test func photosReserveTheEstimateOfTheSizeTheirHeaderGives() throws {
        let budget = SharedMemoryBudget()
        let png = PNGBytes.signature + PNGBytes.ihdr(width: 3000, height: 2000, colorType: 2)
        let jpeg = try Fixtures.bytes("jpeg/large_420.jpg")
        #expect(ImageIO.storedSize(of: png).map { [$0.width, $0.height] } == [3000, 2000])
        #expect(ImageIO.storedSize(of: jpeg).map { [$0.width, $0.height] } == [320, 240])
        #expect(ImageIO.storedSize(of: Array(jpeg.prefix(100))) == nil)
        #expect(ImageIO.storedSize(of: [1, 2, 3]) == nil)
        let limits = DecodingLimits(maxMemoryBytes: 1 << 40)
        let reservation = try #require(budget.reserve(forImage: png, limits: limits))
        #expect(reservation.bytes == MemoryBudget.estimate(width: 3000, height: 2000))
        #expect(budget.reserve(forImage: [0xFF, 0xD8, 0xFF, 0xD9], limits: limits)?.bytes == 0)
    }
}
