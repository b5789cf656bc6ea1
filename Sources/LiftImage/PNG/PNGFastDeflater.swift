/// Deflates one segment of a PNG's filtered image data the way fpnge does, without zlib: the segment's
/// bytes are tokenised into literals, runs of zeros and repeated pixels (`DeflateTokenizer`), counted,
/// and written as one
/// block with a Huffman code made for that segment (`DeflateHuffmanCode`), or as stored blocks when
/// those are smaller (incompressible data grows by 5 bytes per 64 KiB).
///
/// Like `PNGDeflater`'s, the pieces concatenate into one raw deflate stream: each starts and ends on a
/// byte boundary, a non-final one ending with an empty stored block (zlib's sync flush) after its
/// Huffman block, the final one setting BFINAL. No match reaches into an earlier segment, so segments
/// need no dictionary and compress independently, on any thread.
enum PNGFastDeflater {
    /// Symbols of the literal/length alphabet (0…255 literals, 256 end of block, 257…285 lengths).
    private static let literalSymbols = 286
    /// Bytes in a stored block at most.
    private static let storedBlockBytes = 65535

    /// The deflate stream of `segment`; `final` ends the stream (BFINAL), else the piece ends with a
    /// sync flush so that the next piece starts on a byte boundary. `pixelBytes` (1…8) is the distance
    /// of repeated-pixel matches.
    static func compress(_ segment: UnsafeBufferPointer<UInt8>, pixelBytes: Int, final: Bool) -> [UInt8] {
        guard let data = segment.baseAddress, !segment.isEmpty else { preconditionFailure("a segment holds at least one row") }
        precondition((1...8).contains(pixelBytes), "PNG pixels are 1…8 bytes")
        // The tables live on the heap, apart from the sinks' running state: kept in the same stack
        // frame, the state's stores could alias the tables' loads for LLVM and stayed in memory.
        let counts = UnsafeMutablePointer<UInt32>.allocate(capacity: SymbolCounter.tableEntries)
        let codes = UnsafeMutablePointer<UInt64>.allocate(capacity: TokenWriter.tableEntries)
        defer {
            counts.deallocate()
            codes.deallocate()
        }
        var counter = SymbolCounter(tables: counts)
        DeflateTokenizer.tokenize(data, count: segment.count, pixelBytes: pixelBytes, into: &counter)
        var frequencies = counter.frequencies()
        frequencies[256] = 1
        // 14 bits rather than deflate's 15, so that four literal codes fit one write (`TokenWriter`).
        let literalCode = DeflateHuffmanCode(frequencies: frequencies, limit: 14)
        let distances = DistanceCodes(pixelBytes: pixelBytes)
        let header = DeflateBlockHeader(literalLengths: literalCode.lengths, distanceLengths: distances.lengths)
        // Bits of the Huffman block: header, codes, length extra bits, distance codes.
        let blockBits = header.bitCount + literalCode.cost(of: frequencies) + counter.extraBits
            + counter.nearMatches * Int(distances.near.count) + counter.pixelMatches * Int(distances.pixel.count)
        // A non-final block is followed by an empty stored block: 3 bits, padding, LEN and NLEN.
        let huffmanBytes = final ? (blockBits + 7) / 8 : (blockBits + 3 + 7) / 8 + 4
        let storedBlocks = (segment.count + storedBlockBytes - 1) / storedBlockBytes
        let storedBytes = segment.count + 5 * storedBlocks
        let size = min(huffmanBytes, storedBytes)
        return [UInt8](unsafeUninitializedCapacity: size + 8) { buffer, initialized in
            var writer = DeflateBitWriter(buffer: buffer)
            if huffmanBytes <= storedBytes {
                header.write(final: final, to: &writer)
                var tokens = TokenWriter(writer: writer, literalCode: literalCode, distances: distances, tables: codes)
                DeflateTokenizer.tokenize(data, count: segment.count, pixelBytes: pixelBytes, into: &tokens)
                writer = tokens.writer
                writer.write(UInt64(literalCode.codes[256]), count: Int(literalCode.lengths[256]))
                if !final { writeStoredBlock(UnsafeBufferPointer(start: data, count: 0), final: false, to: &writer) }
                writer.alignToByte()
            } else {
                for block in 0..<storedBlocks {
                    let start = block * storedBlockBytes, end = min(start + storedBlockBytes, segment.count)
                    writeStoredBlock(UnsafeBufferPointer(rebasing: segment[start..<end]), final: final && end == segment.count, to: &writer)
                }
            }
            precondition(writer.byteCount == size, "the deflate size was computed as \(size) bytes, \(writer.byteCount) were written")
            initialized = size
        }
    }

    /// The distance code of a block (RFC 1951 §3.2.5): distance 1 (code 0) and one pixel back, each
    /// with a 1-bit code; when a pixel is one byte both are code 0 and code 1 fills the code out, so
    /// it is always complete.
    private struct DistanceCodes {
        /// Code lengths of distance codes 0…29.
        let lengths: [UInt8]
        /// The bits written for a match at distance 1 and one pixel back: code and extra bits together.
        let near: (bits: UInt64, count: UInt64), pixel: (bits: UInt64, count: UInt64)

        init(pixelBytes: Int) {
            // Distances 1…4 are codes 0…3; 5–6 code 4 and 7–8 code 5, each with one extra bit.
            let code = pixelBytes <= 4 ? pixelBytes - 1 : pixelBytes <= 6 ? 4 : 5
            let extra: (value: UInt64, count: UInt64) = pixelBytes <= 4 ? (0, 0) : (UInt64((pixelBytes - 1) & 1), 1)
            var lengths = [UInt8](repeating: 0, count: 30)
            lengths[0] = 1
            lengths[max(code, 1)] = 1
            self.lengths = lengths
            near = (0, 1)
            // Canonical codes: code 0 is the bit 0, the other the bit 1.
            pixel = code == 0 ? near : (1 | extra.value << 1, 1 + extra.count)
        }
    }

    /// A stored block (BTYPE 0): 3 header bits, padding to the byte, LEN, NLEN, the bytes.
    private static func writeStoredBlock(_ bytes: UnsafeBufferPointer<UInt8>, final: Bool, to writer: inout DeflateBitWriter) {
        writer.write(final ? 1 : 0, count: 3)
        writer.alignToByte()
        let length = UInt64(bytes.count)
        writer.write(length | (~length & 0xFFFF) << 16, count: 32)
        writer.alignToByte()
        writer.writeAligned(bytes)
    }

    /// Counts literal/length symbols, the extra bits of the lengths and the matches.
    private struct SymbolCounter: DeflateTokenSink {
        /// Counters in the tables: 4 × 256 literals, then 30 for the length symbols.
        static let tableEntries = 4 * 256 + 30
        /// Occurrences of each literal, in four tables that bytes 0/4, 1/5, 2/6 and 3/7 of a word go
        /// to: neighbouring equal bytes (common in residuals) would otherwise wait on each other's
        /// increment. UInt32 suffices: a segment is under 2^32 bytes (rows under 2^30, few per segment).
        private let literalCounts: UnsafeMutablePointer<UInt32>
        /// Occurrences of each length symbol 257…285, at index symbol − 256.
        private let lengthCounts: UnsafeMutablePointer<UInt32>
        private(set) var extraBits = 0, nearMatches = 0, pixelMatches = 0

        /// A counter at zero whose counts live in `tables` (`tableEntries` entries).
        init(tables: UnsafeMutablePointer<UInt32>) {
            tables.initialize(repeating: 0, count: Self.tableEntries)
            literalCounts = tables
            lengthCounts = tables + 4 * 256
        }

        /// The counts, indexed by literal/length symbol (0 for end of block, 256).
        func frequencies() -> [Int] {
            var frequencies = [Int](repeating: 0, count: 286)
            for byte in 0..<256 {
                for table in 0..<4 { frequencies[byte] += Int(literalCounts[table * 256 + byte]) }
            }
            for symbol in 257..<286 { frequencies[symbol] = Int(lengthCounts[symbol - 256]) }
            return frequencies
        }

        @inline(__always)
        mutating func literal(_ byte: UInt8) { literalCounts[Int(byte)] &+= 1 }

        @inline(__always)
        mutating func literals(_ word: UInt64) {
            for k in 0..<8 {
                literalCounts[(k & 3) &* 256 &+ Int(truncatingIfNeeded: word &>> UInt64(k &* 8) & 0xFF)] &+= 1
            }
        }

        @inline(__always)
        mutating func match(_ length: Int, pixel: Bool) {
            let code = DeflateLengthCode.table[length]
            lengthCounts[code.symbol &- 256] &+= 1
            extraBits &+= code.extraBits
            if pixel { pixelMatches &+= 1 } else { nearMatches &+= 1 }
        }
    }

    /// Writes tokens with a segment's codes; each table entry is a code's bits in the low 32 bits and its
    /// bit count in the high 32 (for lengths: the length code and its extra bits together).
    private struct TokenWriter: DeflateTokenSink {
        /// Entries in the tables: 256 literals, then lengths 0…258 (0…2 unused).
        static let tableEntries = 256 + 259
        var writer: DeflateBitWriter
        private let literalTable: UnsafePointer<UInt64>, matchTable: UnsafePointer<UInt64>
        private let distances: DistanceCodes

        /// A writer whose tables are filled into `tables` (`tableEntries` entries).
        init(writer: DeflateBitWriter, literalCode: DeflateHuffmanCode, distances: DistanceCodes, tables: UnsafeMutablePointer<UInt64>) {
            self.writer = writer
            self.distances = distances
            for byte in 0..<256 {
                tables[byte] = UInt64(literalCode.codes[byte]) | UInt64(literalCode.lengths[byte]) << 32
            }
            let matches = tables + 256
            matches.initialize(repeating: 0, count: 3)
            for length in 3...258 {
                let code = DeflateLengthCode.table[length]
                let codeBits = Int(literalCode.lengths[code.symbol])
                let bits = UInt64(literalCode.codes[code.symbol]) | UInt64(code.extra) << UInt64(codeBits)
                matches[length] = bits | UInt64(codeBits + code.extraBits) << 32
            }
            literalTable = UnsafePointer(tables)
            matchTable = UnsafePointer(matches)
        }

        @inline(__always)
        mutating func literal(_ byte: UInt8) {
            let entry = literalTable[Int(byte)]
            writer.write(entry & 0xFFFF_FFFF, count: Int(truncatingIfNeeded: entry >> 32))
        }

        @inline(__always)
        mutating func literals(_ word: UInt64) {
            // Codes of at most 14 bits, four per write (56 bits): bytes 0-3, then 4-7.
            writeFour(word, from: 0)
            writeFour(word, from: 4)
        }

        /// Writes the codes of bytes `first` ..< `first + 4` of `word` at once.
        @inline(__always)
        private mutating func writeFour(_ word: UInt64, from first: Int) {
            let (bits0, count0) = code(word, first), (bits1, count1) = code(word, first &+ 1)
            let (bits2, count2) = code(word, first &+ 2), (bits3, count3) = code(word, first &+ 3)
            let low = bits0 | bits1 &<< count0, high = bits2 | bits3 &<< count2
            let lowCount = count0 &+ count1
            writer.write(low | high &<< lowCount, count: Int(truncatingIfNeeded: lowCount &+ count2 &+ count3))
        }

        /// The code of byte `k` of `word`: its bits and bit count.
        @inline(__always)
        private func code(_ word: UInt64, _ k: Int) -> (UInt64, UInt64) {
            let entry = literalTable[Int(truncatingIfNeeded: word &>> UInt64(truncatingIfNeeded: k &* 8) & 0xFF)]
            return (entry & 0xFFFF_FFFF, entry &>> 32)
        }

        @inline(__always)
        mutating func match(_ length: Int, pixel: Bool) {
            let entry = matchTable[length], count = entry &>> 32
            let distance = pixel ? distances.pixel : distances.near
            writer.write(entry & 0xFFFF_FFFF | distance.bits &<< count, count: Int(truncatingIfNeeded: count &+ distance.count))
        }
    }
}
