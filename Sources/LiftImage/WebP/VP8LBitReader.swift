/// Reads a lossless (VP8L) bitstream: bits least-significant first out of little-endian bytes
/// (RFC 9649 §3.1).
///
/// Bits past the end of the data read as zeros and set `isPastEnd`; the decoder checks it after each
/// stage, as libwebp does, so a stream that ends exactly at its last bit is valid and one that needs a
/// single bit more is truncated.
struct VP8LBitReader {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    /// The next byte to load.
    private var next = 0
    /// Loaded bits not yet consumed, the next one in bit 0.
    private var buffer: UInt64 = 0
    /// Number of valid bits in `buffer`.
    private var available = 0
    /// Whether more bits were consumed than the data holds.
    private(set) var isPastEnd = false

    /// A reader over `data`, which must outlive it.
    init(_ data: UnsafeBufferPointer<UInt8>) {
        // An empty buffer may have no address; any valid pointer serves, as nothing is loaded from it.
        base = data.baseAddress ?? UnsafePointer(bitPattern: 1).unsafelyUnwrapped
        count = data.count
    }

    /// Bits consumed so far (for error offsets and tests).
    var bitPosition: Int { next &* 8 &- available }

    /// Tops up `buffer` to at least 32 valid bits while data remains.
    @inline(__always)
    mutating func refill() {
        guard available < 32 else { return }
        if next &+ 4 <= count {
            let word = UnsafeRawPointer(base + next).loadUnaligned(as: UInt32.self)
            buffer |= UInt64(UInt32(littleEndian: word)) &<< UInt64(available)
            next &+= 4
            available &+= 32
        } else {
            while available <= 56 && next < count {
                buffer |= UInt64(base[next]) &<< UInt64(available)
                next &+= 1
                available &+= 8
            }
        }
    }

    /// The next `n` bits (n ≤ 32) without consuming them; call `refill` first.
    @inline(__always)
    func peek(_ n: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: buffer & ((1 &<< UInt64(n)) &- 1))
    }

    /// The next 32 bits (zeros past the end) without consuming them; call `refill` first.
    @inline(__always)
    var peek32: UInt32 { UInt32(truncatingIfNeeded: buffer) }

    /// Consumes `n` bits (after `refill`, at most the 32 it guarantees).
    @inline(__always)
    mutating func skip(_ n: Int) {
        if n > available {
            isPastEnd = true
            buffer = 0
            available = 0
            return
        }
        buffer &>>= UInt64(n)
        available &-= n
    }

    /// Reads an `n`-bit value (n ≤ 24).
    @inline(__always)
    mutating func read(_ n: Int) -> Int {
        refill()
        let value = peek(n)
        skip(n)
        return Int(value)
    }

    /// Reads one bit as a flag.
    @inline(__always)
    mutating func readFlag() -> Bool { read(1) != 0 }
}
