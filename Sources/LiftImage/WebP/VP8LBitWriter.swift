/// Writes a lossless (VP8L) bitstream: each value's least significant bit first, bytes filled from
/// their least significant bit (RFC 9649 §3.1), into a growing byte array.
struct VP8LBitWriter {
    private(set) var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var pendingCount = 0

    /// A writer whose buffer starts with room for `capacity` bytes.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends the low `count` bits of `value` (`count` ≤ 32; higher bits of `value` must be 0).
    @inline(__always)
    mutating func write(_ value: UInt32, _ count: Int) {
        pending |= UInt64(value) &<< UInt64(pendingCount)
        pendingCount &+= count
        if pendingCount >= 32 {
            let word = UInt32(truncatingIfNeeded: pending)
            bytes.append(UInt8(truncatingIfNeeded: word))
            bytes.append(UInt8(truncatingIfNeeded: word >> 8))
            bytes.append(UInt8(truncatingIfNeeded: word >> 16))
            bytes.append(UInt8(truncatingIfNeeded: word >> 24))
            pending &>>= 32
            pendingCount &-= 32
        }
    }

    /// Appends `value` as `count` bits (an `Int` shorthand).
    @inline(__always)
    mutating func write(_ value: Int, _ count: Int) { write(UInt32(truncatingIfNeeded: value), count) }

    /// Pads with zero bits to a whole byte and returns everything written.
    mutating func finish() -> [UInt8] {
        while pendingCount > 0 {
            bytes.append(UInt8(truncatingIfNeeded: pending))
            pending &>>= 8
            pendingCount = max(pendingCount - 8, 0)
        }
        return bytes
    }
}
