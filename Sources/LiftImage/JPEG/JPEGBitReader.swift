/// Reads the entropy-coded data of a scan bit by bit, most significant bit first, removing the
/// stuffed zero after each `FF` and stopping at markers.
///
/// At a marker or at the end of the file the reader feeds zero bits (as libjpeg does) and counts
/// them in `paddingBits`; `overran` tells whether any of those were actually consumed, which the
/// scan decoders turn into a `truncated` or `corruptData` error.
struct JPEGBitReader {
    /// The whole file.
    let data: UnsafeBufferPointer<UInt8>
    /// Next byte to load.
    var position: Int
    /// Unconsumed bits, left-aligned (bit 63 is the next bit).
    var buffer: UInt64 = 0
    /// Number of valid bits in `buffer`.
    var count: Int = 0
    /// Zero bits fed after a marker or the end of the data.
    var paddingBits: Int = 0

    init(data: UnsafeBufferPointer<UInt8>, position: Int) {
        self.data = data
        self.position = position
    }

    /// True when the decoder has consumed bits that were not in the file.
    @inline(__always) var overran: Bool { paddingBits > count }

    /// True when the reader stopped at the end of the file rather than at a marker.
    var atEndOfData: Bool { position >= data.count }

    /// Tops the buffer up to at least 57 valid bits.
    @inline(__always) mutating func fill() {
        // Fast path: eight bytes without an FF can be taken whole.
        if position &+ 8 <= data.count {
            let word = UInt64(bigEndianBytesAt: data.baseAddress.unsafelyUnwrapped + position)
            let inverted = ~word
            let hasFF = (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080
            if hasFF == 0 {
                let take = (64 &- count) >> 3
                buffer |= (word &>> UInt64(64 &- take &* 8)) &<< UInt64(64 &- count &- take &* 8)
                count &+= take &* 8
                position &+= take
                return
            }
        }
        fillSlowly()
    }

    mutating func fillSlowly() {
        while count <= 56 {
            var byte: UInt64 = 0
            if position < data.count, paddingBits == 0 {
                let b = data[position]
                if b == 0xFF {
                    var next = position &+ 1
                    while next < data.count, data[next] == 0xFF { next &+= 1 }
                    if next < data.count, data[next] == 0 {
                        position = next &+ 1
                        byte = 0xFF
                    } else {
                        paddingBits &+= 8
                    }
                } else {
                    position &+= 1
                    byte = UInt64(b)
                }
            } else {
                paddingBits &+= 8
            }
            buffer |= byte &<< UInt64(56 &- count)
            count &+= 8
        }
    }

    /// The next `n` (1…16) bits without consuming them; the buffer must hold at least `n`.
    @inline(__always) func peek(_ n: Int) -> Int { Int(truncatingIfNeeded: buffer &>> UInt64(64 &- n)) }

    /// Consumes `n` bits.
    @inline(__always) mutating func skip(_ n: Int) {
        buffer = buffer &<< UInt64(n)
        count &-= n
    }

    /// Reads `n` (0…16) bits as an unsigned number.
    @inline(__always) mutating func bits(_ n: Int) -> Int {
        if n == 0 { return 0 }
        if count < n { fill() }
        let v = peek(n)
        skip(n)
        return v
    }

    /// Reads one bit.
    @inline(__always) mutating func bit() -> Bool {
        if count < 1 { fill() }
        let v = buffer >> 63
        skip(1)
        return v != 0
    }

    /// Reads `n` bits and sign-extends them as JPEG's EXTEND procedure (F.12) does.
    @inline(__always) mutating func receiveExtend(_ n: Int) -> Int32 {
        if n == 0 { return 0 }
        let v = Int32(truncatingIfNeeded: bits(n))
        return v < (Int32(1) << (n &- 1)) ? v &- (Int32(1) << n) &+ 1 : v
    }

    /// Decodes one Huffman symbol; returns -1 for a code no table entry matches.
    @inline(__always) mutating func decode(_ table: JPEGHuffmanTable.Pointers) -> Int {
        if count < 16 { fill() }
        let entry = table.lookahead[peek(JPEGHuffmanTable.lookaheadBits)]
        if entry != 0 {
            skip(Int(entry >> 8))
            return Int(entry & 0xFF)
        }
        var length = JPEGHuffmanTable.lookaheadBits &+ 1
        while length <= 16 {
            let code = Int32(truncatingIfNeeded: peek(length))
            if code <= table.maxCode[length] {
                skip(length)
                return Int(table.values[Int(code &+ table.valueOffset[length]) & 0xFF])
            }
            length &+= 1
        }
        return -1
    }

    /// Drops everything buffered and finds the next marker at or after the read position, skipping
    /// any entropy-coded bytes left before it (libjpeg skips them too, with a warning).
    /// - Returns: the offset of the marker's `FF` (after fill bytes), or nil when the data ends first.
    mutating func skipToMarker() -> Int? {
        buffer = 0
        count = 0
        paddingBits = 0
        var p = position
        while p &+ 1 < data.count {
            if data[p] == 0xFF {
                let next = data[p &+ 1]
                if next != 0 && next != 0xFF { return p }
                p &+= next == 0 ? 2 : 1
            } else {
                p &+= 1
            }
        }
        return nil
    }
}

extension UInt64 {
    /// Loads 8 bytes at `pointer` as a big-endian number.
    @inline(__always) init(bigEndianBytesAt pointer: UnsafePointer<UInt8>) {
        self = UInt64(bigEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }
}
