/// A Huffman table as a DHT segment carries it: how many codes have each length 1...16 and the
/// symbols in code order. The encoder either uses the example tables of Annex K.3 or builds tables
/// fitted to the image's symbol counts, as libjpeg's `jpeg_gen_optimal_table` does.
struct JPEGHuffmanSpec: Equatable {
    /// `counts[l - 1]`: the number of codes of length `l` bits, for `l` in 1...16.
    let counts: [UInt8]
    /// The symbols, shortest codes first (as many as the counts add up to).
    let symbols: [UInt8]

    /// Annex K.3, table K.3: luminance DC differences.
    static let standardLuminanceDC = JPEGHuffmanSpec(counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
                                                     symbols: Array(0 ... 11))
    /// Annex K.3, table K.4: chrominance DC differences.
    static let standardChrominanceDC = JPEGHuffmanSpec(counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
                                                       symbols: Array(0 ... 11))
    /// Annex K.3, table K.5: luminance AC run/size symbols.
    static let standardLuminanceAC = JPEGHuffmanSpec(
        counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D],
        symbols: [
            0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
            0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
            0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
            0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
            0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
            0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
            0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
            0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
            0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
            0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
            0xF9, 0xFA,
        ])
    /// Annex K.3, table K.6: chrominance AC run/size symbols.
    static let standardChrominanceAC = JPEGHuffmanSpec(
        counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
        symbols: [
            0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
            0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0,
            0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26,
            0x27, 0x28, 0x29, 0x2A, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
            0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
            0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
            0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5,
            0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
            0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA,
            0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
            0xF9, 0xFA,
        ])

    /// The table libjpeg's `jpeg_gen_optimal_table` builds for symbol `frequencies` (256 counts):
    /// Huffman's algorithm over the used symbols plus a pseudo-symbol 256 of count 1 (so that no
    /// real symbol gets the all-ones code), ties broken towards the larger symbol number, code
    /// lengths over 16 folded back as Annex K.2 describes, the pseudo-symbol then removed from the
    /// longest length. The one departure: libjpeg caps the counts it compares at 10^9, which only
    /// images of billions of blocks reach; here any count works.
    static func optimal(frequencies: [Int]) -> JPEGHuffmanSpec {
        precondition(frequencies.count == 256, "one count per symbol")
        let maxLength = 32
        var freq = frequencies + [1]
        var codeSize = [Int](repeating: 0, count: 257)
        var others = [Int](repeating: -1, count: 257)
        while true {
            // The two smallest non-zero counts; among equals, the larger symbol.
            var c1 = -1, c2 = -1
            var v = Int.max
            for i in 0 ... 256 where freq[i] != 0 && freq[i] <= v {
                v = freq[i]
                c1 = i
            }
            v = Int.max
            for i in 0 ... 256 where freq[i] != 0 && freq[i] <= v && i != c1 {
                v = freq[i]
                c2 = i
            }
            if c2 < 0 { break }
            freq[c1] += freq[c2]
            freq[c2] = 0
            // Every symbol in either branch gets one bit longer; c2's branch is chained onto c1's.
            codeSize[c1] += 1
            while others[c1] >= 0 {
                c1 = others[c1]
                codeSize[c1] += 1
            }
            others[c1] = c2
            codeSize[c2] += 1
            while others[c2] >= 0 {
                c2 = others[c2]
                codeSize[c2] += 1
            }
        }
        var bits = [Int](repeating: 0, count: maxLength + 1)
        for size in codeSize where size > 0 {
            // 257 symbols cannot make a tree deeper than 256, and counts this large never occur.
            precondition(size <= maxLength, "Huffman code length over 32 bits")
            bits[size] += 1
        }
        // JPEG allows 16 bits at most: take two symbols off a long length, one goes a bit shorter,
        // and a shorter code becomes the prefix of two (Annex K.2).
        var length = maxLength
        while length > 16 {
            while bits[length] > 0 {
                var j = length - 2
                while bits[j] == 0 { j -= 1 }
                bits[length] -= 2
                bits[length - 1] += 1
                bits[j + 1] += 2
                bits[j] -= 1
            }
            length -= 1
        }
        while bits[length] == 0 { length -= 1 }
        bits[length] -= 1 // the pseudo-symbol
        var symbols: [UInt8] = []
        for size in 1 ... maxLength {
            for symbol in 0 ..< 256 where codeSize[symbol] == size { symbols.append(UInt8(symbol)) }
        }
        return JPEGHuffmanSpec(counts: bits[1 ... 16].map { UInt8($0) }, symbols: symbols)
    }
}
