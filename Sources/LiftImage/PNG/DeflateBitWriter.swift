/// Writes a deflate bit stream (RFC 1951 §3.1.1: each value's least significant bit first, bytes
/// filled from their least significant bit) into a buffer the caller sized in advance.
///
/// Bits gather in a 64-bit accumulator; after each write all 8 of its bytes are stored (unaligned) and
/// the pointer moves on by the whole bytes completed, so fewer than 8 bits stay pending and the next
/// write may add up to 56 bits, with no branch on the bit count. The buffer therefore needs 8 bytes of
/// slack past the last byte written, and every store is checked against it.
struct DeflateBitWriter {
    private let start: UnsafeMutablePointer<UInt8>
    /// One past the last position an 8-byte store may start at.
    private let storeLimit: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>
    private var pending: UInt64 = 0
    private var pendingCount = 0

    /// A writer at the start of `buffer`, which holds the stream's bytes plus 8 bytes of slack.
    init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress, buffer.count >= 8 else { preconditionFailure("the bit writer needs 8 bytes of slack") }
        start = base
        next = base
        storeLimit = base + (buffer.count - 7)
    }

    /// Bytes completed so far (after `alignToByte`, everything written).
    var byteCount: Int { next - start }

    /// Appends the low `count` bits of `value` (`count` ≤ 56; the higher bits of `value` must be 0).
    @inline(__always)
    mutating func write(_ value: UInt64, count: Int) {
        pending |= value &<< UInt64(truncatingIfNeeded: pendingCount)
        pendingCount &+= count
        precondition(next < storeLimit, "the deflate output was sized too small")
        UnsafeMutableRawPointer(next).storeBytes(of: pending.littleEndian, as: UInt64.self)
        let bytes = pendingCount &>> 3
        next += bytes
        pending = bytes == 8 ? 0 : pending &>> UInt64(truncatingIfNeeded: bytes &* 8)
        pendingCount &= 7
    }

    /// Pads with zero bits to a byte boundary: the partial byte (already stored by the last write)
    /// becomes part of the stream.
    mutating func alignToByte() {
        if pendingCount > 0 {
            precondition(next < storeLimit, "the deflate output was sized too small")
            next.pointee = UInt8(truncatingIfNeeded: pending)
            next += 1
        }
        pending = 0
        pendingCount = 0
    }

    /// Copies `bytes` to the stream; only at a byte boundary (after `alignToByte`).
    mutating func writeAligned(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(pendingCount == 0, "bytes are copied only at a byte boundary")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(bytes.count <= storeLimit + 7 - next, "the deflate output was sized too small")
        next.update(from: base, count: bytes.count)
        next += bytes.count
    }
}
