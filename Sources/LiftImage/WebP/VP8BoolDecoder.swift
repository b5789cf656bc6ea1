/// The boolean entropy decoder of VP8 (RFC 6386 §7): each bool is read at a probability `p/256` of
/// being 0 by splitting the current range, then renormalising it to 128…255 by shifting in bits.
///
/// `bits` counts the bits loaded into `value` beyond the 8 the next split is compared with; bytes are
/// loaded seven at a time. `isPastEnd` becomes true when a read finds every byte of the partition
/// already shifted in and needs more (zeros are shifted in then). libwebp flags the end of a
/// partition at exactly this point, and a frame whose partition runs dry is invalid, so the decoder
/// checks it where libwebp does (after the frame header, after each row of modes, after each
/// macroblock's coefficients).
struct VP8BoolDecoder {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var next = 0
    private var value: UInt64 = 0
    private var bits = -8
    /// The range minus one, 127…254 between reads.
    private var range: UInt32 = 254
    /// Whether a read needed bits past the end of the data.
    private(set) var isPastEnd = false

    /// A decoder over `data`, which must outlive it.
    init(_ data: UnsafeBufferPointer<UInt8>) {
        base = data.baseAddress ?? UnsafePointer(bitPattern: 1).unsafelyUnwrapped
        end = data.count
        load()
    }

    /// Shifts in more bytes: seven at once while at least eight remain, then one at a time, then zeros.
    private mutating func load() {
        if next &+ 8 <= end {
            let word = UInt64(bigEndian: UnsafeRawPointer(base + next).loadUnaligned(as: UInt64.self))
            value = value &<< 56 | word &>> 8
            next &+= 7
            bits &+= 56
        } else if next < end {
            value = value &<< 8 | UInt64(base[next])
            next &+= 1
            bits &+= 8
        } else if !isPastEnd {
            value &<<= 8
            bits &+= 8
            isPastEnd = true
        } else {
            bits = 0
        }
    }

    /// Reads one bool that is 0 with probability `probability / 256`.
    @inline(__always)
    mutating func read(_ probability: UInt8) -> Bool {
        if bits < 0 { load() }
        let split = (range &* UInt32(probability)) &>> 8
        let window = UInt32(truncatingIfNeeded: value &>> UInt64(bits))
        let bit = window > split
        var newRange: UInt32
        if bit {
            newRange = range &- split
            value &-= UInt64(split &+ 1) &<< UInt64(bits)
        } else {
            newRange = split &+ 1
        }
        // Renormalise: shift until the range is at least 128.
        let shift = newRange.leadingZeroBitCount &- 24
        newRange &<<= UInt32(shift)
        bits &-= shift
        range = newRange &- 1
        return bit
    }

    /// Reads one bool as 0 or 1.
    @inline(__always)
    mutating func readBit(_ probability: UInt8) -> Int { read(probability) ? 1 : 0 }

    /// Reads an unsigned `count`-bit literal, most significant bit first, each bit at probability 1/2.
    mutating func readLiteral(_ count: Int) -> Int {
        var value = 0
        for _ in 0 ..< count { value = value << 1 | readBit(128) }
        return value
    }

    /// Reads a `count`-bit magnitude then a sign flag (1: negative), as the frame header's deltas are coded.
    mutating func readSignedLiteral(_ count: Int) -> Int {
        let magnitude = readLiteral(count)
        return read(128) ? -magnitude : magnitude
    }

    /// Reads a flag, and when it is set a signed `count`-bit value; 0 when it is not.
    mutating func readOptionalSigned(_ count: Int) -> Int {
        read(128) ? readSignedLiteral(count) : 0
    }
}
