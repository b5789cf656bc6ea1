/// A Huffman decoding table built from a DHT segment: a 9-bit lookahead table for short codes and
/// canonical `maxCode` / `valueOffset` arrays for the rest (as libjpeg's `d_derived_tbl`).
///
/// The storage is manually allocated so the scan decoders read it without bounds checks or
/// reference counting in their inner loops; it is immutable after `init`.
final class JPEGHuffmanTable {
    /// Bits looked at by the fast path.
    static let lookaheadBits = 9

    /// The table's storage as plain pointers, so hot loops pass it around without reference
    /// counting; valid while the table object is alive.
    struct Pointers {
        let lookahead: UnsafePointer<UInt16>
        let fastAC: UnsafePointer<Int32>
        let maxCode: UnsafePointer<Int32>
        let valueOffset: UnsafePointer<Int32>
        let values: UnsafePointer<UInt8>
    }

    var pointers: Pointers { Pointers(lookahead: lookahead, fastAC: fastAC, maxCode: maxCode, valueOffset: valueOffset, values: values) }

    /// `lookahead[peek9]`: `length << 8 | symbol`, or 0 when the code is longer than 9 bits.
    let lookahead: UnsafeMutablePointer<UInt16>
    /// For AC tables, `fastAC[peek9]` decodes a whole run/level pair whose code and extra bits fit in
    /// 9 bits: `level << 8 | run << 4 | bitsUsed`, or 0 when the slow path is needed (as stb_image).
    let fastAC: UnsafeMutablePointer<Int32>
    /// `maxCode[l]`: the largest code of length `l` (1…16), or -1 when none; `maxCode[17]` is a sentinel.
    let maxCode: UnsafeMutablePointer<Int32>
    /// `valueOffset[l]`: add to a code of length `l` to index `values`.
    let valueOffset: UnsafeMutablePointer<Int32>
    /// The symbols in code order (256 entries, unused ones 0).
    let values: UnsafeMutablePointer<UInt8>

    /// Builds the table from the 16 code-length counts and the symbols of a DHT entry.
    /// - Returns: nil when the counts describe more codes than fit in their lengths.
    init?(counts: [Int], symbols: [UInt8]) {
        precondition(counts.count == 16, "Huffman table needs 16 counts")
        lookahead = .allocate(capacity: 1 << Self.lookaheadBits)
        lookahead.initialize(repeating: 0, count: 1 << Self.lookaheadBits)
        fastAC = .allocate(capacity: 1 << Self.lookaheadBits)
        fastAC.initialize(repeating: 0, count: 1 << Self.lookaheadBits)
        maxCode = .allocate(capacity: 18)
        maxCode.initialize(repeating: -1, count: 18)
        valueOffset = .allocate(capacity: 18)
        valueOffset.initialize(repeating: 0, count: 18)
        values = .allocate(capacity: 256)
        values.initialize(repeating: 0, count: 256)
        for (i, s) in symbols.prefix(256).enumerated() { values[i] = s }

        var code: Int32 = 0
        var index: Int32 = 0
        for length in 1 ... 16 {
            let n = Int32(counts[length - 1])
            if n > 0 {
                valueOffset[length] = index - code
                code += n
                index += n
                maxCode[length] = code - 1
                // Codes of this length must fit in `length` bits without using the all-ones code, as
                // libjpeg's jpeg_make_d_derived_tbl requires.
                if code >= (Int32(1) << length) { return nil }
                if length <= Self.lookaheadBits {
                    let shift = Self.lookaheadBits - length
                    for c in (code - n) ..< code {
                        let symbol = UInt16(values[Int(c + valueOffset[length])])
                        let first = Int(c) << shift
                        for fill in 0 ..< (1 << shift) { lookahead[first + fill] = UInt16(length) << 8 | symbol }
                    }
                }
            }
            code <<= 1
        }
        maxCode[17] = Int32.max
        buildFastAC()
    }

    private func buildFastAC() {
        let bits = Self.lookaheadBits
        for index in 0 ..< (1 << bits) {
            let entry = lookahead[index]
            guard entry != 0 else { continue }
            let length = Int(entry >> 8), symbol = Int(entry & 0xFF)
            let run = symbol >> 4, size = symbol & 15
            guard size != 0, length + size <= bits else { continue }
            let raw = (index >> (bits - length - size)) & ((1 << size) - 1)
            let level = raw < (1 << (size - 1)) ? raw - (1 << size) + 1 : raw
            fastAC[index] = Int32(level << 8 | run << 4 | (length + size))
        }
    }

    deinit {
        lookahead.deallocate()
        fastAC.deallocate()
        maxCode.deallocate()
        valueOffset.deallocate()
        values.deallocate()
    }
}
