/// Entropy-coded bits before byte stuffing: whole 64-bit words (first bit in the most significant
/// position) and a tail of `pendingBits` bits. Parts of a scan coded on different threads are each
/// one writer; `stuff(_:into:)` joins them bit-exactly and inserts the `00` after every `FF` byte,
/// which can only be done once the byte boundaries of the joined stream are known.
///
/// The storage is manual so the coding loop keeps the writer in registers; the owner calls
/// `deallocate()`.
struct JPEGBitWriter {
    private(set) var words: UnsafeMutablePointer<UInt64>
    private(set) var capacity: Int
    private(set) var wordCount = 0
    /// The last `pendingBits` bits written (higher bits are stale and shifted out later).
    private(set) var accumulator: UInt64 = 0
    private(set) var pendingBits = 0

    /// A writer with room for `capacity` words before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        words = .allocate(capacity: self.capacity)
    }

    func deallocate() { words.deallocate() }

    /// Total bits written.
    var bitCount: Int { wordCount &* 64 &+ pendingBits }

    /// Makes room for `count` more words (doubling, so growth costs O(n) overall).
    mutating func reserve(_ count: Int) {
        guard wordCount &+ count > capacity else { return }
        let grown = max(capacity * 2, wordCount + count)
        let moved = UnsafeMutablePointer<UInt64>.allocate(capacity: grown)
        moved.moveInitialize(from: words, count: wordCount)
        words.deallocate()
        words = moved
        capacity = grown
    }

    /// Appends the low `count` bits of `bits` (`count` at most 32; the bits above must be zero).
    /// The caller has reserved the word this may complete.
    @inline(__always)
    mutating func write(_ bits: UInt64, count: Int) {
        let total = pendingBits &+ count
        if total < 64 {
            accumulator = accumulator &<< UInt64(count) | bits
            pendingBits = total
        } else {
            let spill = total &- 64
            words[wordCount] = accumulator &<< UInt64(count &- spill) | bits &>> UInt64(spill)
            wordCount &+= 1
            accumulator = bits
            pendingBits = spill
        }
    }

    /// The scan's entropy-coded bytes: the parts' bits joined in order, padded with 1 bits to a byte
    /// boundary (as libjpeg's `flush_bits`), every `FF` byte followed by a stuffed `00`.
    /// - Parameter output: receives the bytes; it needs room for twice the bytes of the bits plus 16.
    /// - Returns: the number of bytes written.
    static func stuff(_ parts: [JPEGBitWriter], into output: UnsafeMutablePointer<UInt8>) -> Int {
        var sink = StuffingSink(output: output)
        for part in parts {
            for i in 0 ..< part.wordCount { sink.append(part.words[i], count: 64) }
            if part.pendingBits > 0 {
                sink.append(part.accumulator & (UInt64.max &>> UInt64(64 &- part.pendingBits)), count: part.pendingBits)
            }
        }
        return sink.finish()
    }
}

/// Joins bit runs into whole words and writes them out as bytes with `FF 00` stuffing.
private struct StuffingSink {
    let output: UnsafeMutablePointer<UInt8>
    var written = 0
    var accumulator: UInt64 = 0
    var pendingBits = 0

    init(output: UnsafeMutablePointer<UInt8>) { self.output = output }

    /// Appends the low `count` (1...64) bits of `bits`.
    @inline(__always)
    mutating func append(_ bits: UInt64, count: Int) {
        let room = 64 &- pendingBits
        if count < room {
            accumulator = accumulator &<< UInt64(count) | bits
            pendingBits &+= count
            return
        }
        let spill = count &- room
        let head = pendingBits == 0 ? 0 : accumulator &<< UInt64(room)
        emit(head | bits &>> UInt64(spill))
        accumulator = bits
        pendingBits = spill
    }

    /// Writes one word's eight bytes, most significant first; a word with no `FF` byte is one store.
    @inline(__always)
    private mutating func emit(_ word: UInt64) {
        let inverted = ~word
        let hasFF = (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080
        if hasFF == 0 {
            UnsafeMutableRawPointer(output + written).storeBytes(of: word.bigEndian, as: UInt64.self)
            written &+= 8
            return
        }
        for shift in stride(from: 56, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: word &>> UInt64(shift))
            output[written] = byte
            written &+= 1
            if byte == 0xFF {
                output[written] = 0
                written &+= 1
            }
        }
    }

    /// Pads the last bits with ones to a byte boundary, writes them, and returns the byte count.
    mutating func finish() -> Int {
        let padding = (8 &- pendingBits % 8) % 8
        let tail = (accumulator &<< UInt64(padding)) | ((1 &<< UInt64(padding)) &- 1)
        for index in stride(from: (pendingBits &+ padding) / 8 &- 1, through: 0, by: -1) {
            let byte = UInt8(truncatingIfNeeded: tail &>> UInt64(index &* 8))
            output[written] = byte
            written &+= 1
            if byte == 0xFF {
                output[written] = 0
                written &+= 1
            }
        }
        return written
    }
}
