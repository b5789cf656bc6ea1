import Foundation

/// The memory budget of the whole process, shared by every photo in flight (the CLI's, a library
/// user's threads, the server's workers): a photo reserves its `MemoryBudget.estimate` before it is
/// decoded and gives it back once its outputs are made, and a photo that does not fit beside the
/// ones in work waits for them, so photos processed at once never need more together than the
/// budget (`DecodingLimits.maxMemoryBytes`: `--max-memory`, else what the machine allows).
///
/// A photo over the whole budget on its own is not reserved for: its decoder refuses it from its
/// header with the budget's sentence, before allocating.
public final class SharedMemoryBudget: @unchecked Sendable {
    /// The process's budget.
    public static let shared = SharedMemoryBudget()

    /// Bytes reserved for one photo; given back by `release()` (or when the last reference goes).
    public final class Reservation: @unchecked Sendable {
        /// The bytes held.
        public let bytes: Int
        private let budget: SharedMemoryBudget?
        private var released = false

        init(bytes: Int, budget: SharedMemoryBudget?) {
            self.bytes = bytes
            self.budget = budget
        }

        /// Gives the bytes back; later calls do nothing.
        public func release() {
            guard let budget else { return }
            budget.condition.lock()
            defer { budget.condition.unlock() }
            guard !released else { return }
            released = true
            budget.reserved -= bytes
            budget.condition.broadcast()
        }

        deinit { release() }
    }

    private let condition = NSCondition()
    /// Bytes held by reservations now.
    private var reserved = 0

    /// A budget with nothing reserved (tests make their own; the process uses `shared`).
    public init() {}

    /// Bytes reserved now, across photos.
    public var reservedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return reserved
    }

    /// Reserves the memory the image `bytes` (a whole PNG or JPEG file) will take to cut out
    /// (`MemoryBudget.estimate` of the size its header gives) out of `limits.maxMemoryBytes`, waiting
    /// while photos in work hold too much of it.
    /// - Parameter timeout: the longest wait (nil: until it fits, which it does once the photos in
    ///   work are done).
    /// - Returns: the reservation, empty for bytes that are not an image Lift reads or an image over
    ///   the whole budget (its decoder refuses it); nil when `timeout` passed first.
    public func reserve(forImage bytes: [UInt8], limits: DecodingLimits, waitingAtMost timeout: Duration? = nil) -> Reservation? {
        guard let size = ImageIO.storedSize(of: bytes) else { return Reservation(bytes: 0, budget: nil) }
        return reserve(MemoryBudget.estimate(width: size.width, height: size.height), of: limits.maxMemoryBytes, waitingAtMost: timeout)
    }

    /// Reserves `bytes` out of `limit`, waiting up to `timeout` (nil: as long as it takes) while the
    /// reservations held leave too little; an empty reservation when `bytes` alone is over `limit`.
    public func reserve(_ bytes: Int, of limit: Int, waitingAtMost timeout: Duration? = nil) -> Reservation? {
        guard bytes > 0, bytes <= limit else { return Reservation(bytes: 0, budget: nil) }
        let deadline = timeout.map { Date().addingTimeInterval(Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18) }
        condition.lock()
        defer { condition.unlock() }
        // `reserved > 0`: a photo that fits the budget alone always gets it once the others are done.
        while reserved > 0, reserved > limit - bytes {
            if let deadline {
                if !condition.wait(until: deadline), reserved > 0, reserved > limit - bytes { return nil }
            } else {
                condition.wait()
            }
        }
        reserved += bytes
        return Reservation(bytes: bytes, budget: self)
    }
}
