/// Writes an entropy-coded image (RFC 9649 §3.7) from its tokens: the colour-cache size, one prefix
/// code group built from the tokens' histograms (codes limited to 15 bits), then the tokens.
enum VP8LEntropyWriter {
    /// Writes `tokens` (from `VP8LBackwardReferences`) as an image coded with a colour cache of
    /// `cacheBits`; `isMain` adds the bit that says no meta prefix codes follow.
    static func write(_ tokens: [UInt64], cacheBits: Int, isMain: Bool, to writer: inout VP8LBitWriter) {
        if cacheBits > 0 {
            writer.write(1, 1)
            writer.write(cacheBits, 4)
        } else {
            writer.write(0, 1)
        }
        if isMain { writer.write(0, 1) }
        let greenSymbols = VP8LPrefixCodeGroup.greenLiteralsAndLengths + (cacheBits > 0 ? 1 << cacheBits : 0)
        var histograms = [[Int](repeating: 0, count: greenSymbols), [Int](repeating: 0, count: 256), [Int](repeating: 0, count: 256),
                          [Int](repeating: 0, count: 256), [Int](repeating: 0, count: VP8LPrefixCodeGroup.distanceSymbols)]
        for token in tokens {
            switch token >> 62 {
            case 0:
                histograms[0][Int((token >> 8) & 0xFF)] += 1
                histograms[1][Int((token >> 16) & 0xFF)] += 1
                histograms[2][Int(token & 0xFF)] += 1
                histograms[3][Int((token >> 24) & 0xFF)] += 1
            case 1:
                histograms[0][VP8LPrefixCodeGroup.greenLiteralsAndLengths + Int(token & 0xFFFF)] += 1
            default:
                histograms[0][256 + VP8LBackwardReferences.prefix(Int((token >> 32) & 0x1FFF)).symbol] += 1
                histograms[4][VP8LBackwardReferences.prefix(Int(token & 0xFFFF_FFFF)).symbol] += 1
            }
        }
        let codes = histograms.map { PrefixCode(frequencies: $0) }
        for code in codes { code.writeDefinition(to: &writer) }
        let green = codes[0], red = codes[1], blue = codes[2], alpha = codes[3], distance = codes[4]
        for token in tokens {
            switch token >> 62 {
            case 0:
                green.write(Int((token >> 8) & 0xFF), to: &writer)
                red.write(Int((token >> 16) & 0xFF), to: &writer)
                blue.write(Int(token & 0xFF), to: &writer)
                alpha.write(Int((token >> 24) & 0xFF), to: &writer)
            case 1:
                green.write(VP8LPrefixCodeGroup.greenLiteralsAndLengths + Int(token & 0xFFFF), to: &writer)
            default:
                let length = VP8LBackwardReferences.prefix(Int((token >> 32) & 0x1FFF))
                green.write(256 + length.symbol, to: &writer)
                writer.write(length.extra, length.extraBits)
                let code = VP8LBackwardReferences.prefix(Int(token & 0xFFFF_FFFF))
                distance.write(code.symbol, to: &writer)
                writer.write(code.extra, code.extraBits)
            }
        }
    }

    /// A prefix code for one alphabet, as the encoder writes it: a code of one symbol (or none) takes
    /// no bits; otherwise a canonical code with lengths limited to 15 bits.
    struct PrefixCode {
        let lengths: [UInt8]
        let codes: [UInt16]
        /// The used symbols when there are at most two (written as a simple code when both are below 256).
        let fewSymbols: [Int]?

        init(frequencies: [Int]) {
            let used = frequencies.indices.filter { frequencies[$0] > 0 }
            if used.count <= 1 {
                lengths = [UInt8](repeating: 0, count: frequencies.count)
                codes = [UInt16](repeating: 0, count: frequencies.count)
                fewSymbols = used
                return
            }
            let code = DeflateHuffmanCode(frequencies: frequencies, limit: VP8LPrefixCode.maxLength)
            lengths = code.lengths
            codes = code.codes
            fewSymbols = used.count == 2 ? used : nil
        }

        /// Writes `symbol`'s code (nothing for a code of one symbol).
        @inline(__always)
        func write(_ symbol: Int, to writer: inout VP8LBitWriter) {
            writer.write(UInt32(codes[symbol]), Int(lengths[symbol]))
        }

        /// Writes the code's description: a simple code for one symbol, or two below 256; otherwise the
        /// code lengths, run-length coded with the code-length code.
        func writeDefinition(to writer: inout VP8LBitWriter) {
            if let few = fewSymbols, few.allSatisfy({ $0 < 256 }) {
                let symbols = few.isEmpty ? [0] : few
                writer.write(1, 1)
                writer.write(symbols.count - 1, 1)
                writer.write(symbols[0] > 1 ? 1 : 0, 1)
                writer.write(symbols[0], symbols[0] > 1 ? 8 : 1)
                if symbols.count == 2 { writer.write(symbols[1], 8) }
                return
            }
            var lengths = self.lengths
            if let few = fewSymbols, few.count == 1 { lengths[few[0]] = 1 }  // one symbol ≥ 256: it reads no bits
            writeLengths(lengths, to: &writer)
        }

        /// The normal code-length code (RFC 9649 §3.7.2.1.2): lengths as symbols 0…15, 16 (repeat the
        /// previous length 3–6 times), 17 (3–10 zeros), 18 (11–138 zeros).
        private func writeLengths(_ lengths: [UInt8], to writer: inout VP8LBitWriter) {
            var symbols: [(symbol: Int, extra: Int)] = []
            var i = 0
            while i < lengths.count {
                let value = lengths[i]
                var run = 1
                while i + run < lengths.count && lengths[i + run] == value { run += 1 }
                i += run
                if value == 0 {
                    while run >= 11 {
                        let n = min(run, 138)
                        symbols.append((18, n - 11))
                        run -= n
                    }
                    if run >= 3 {
                        symbols.append((17, run - 3))
                        run = 0
                    }
                } else {
                    symbols.append((Int(value), 0))
                    run -= 1
                    while run >= 3 {
                        let n = min(run, 6)
                        symbols.append((16, n - 3))
                        run -= n
                    }
                }
                for _ in 0 ..< run { symbols.append((Int(value), 0)) }
            }
            var frequencies = [Int](repeating: 0, count: 19)
            for entry in symbols { frequencies[entry.symbol] += 1 }
            let codeLengthCode = DeflateHuffmanCode(frequencies: frequencies, limit: 7)
            let order = VP8LPrefixCodeGroup.codeLengthOrder
            let sent = max(4, (order.lastIndex { codeLengthCode.lengths[$0] > 0 } ?? 0) + 1)
            writer.write(0, 1)
            writer.write(sent - 4, 4)
            for k in 0 ..< sent { writer.write(Int(codeLengthCode.lengths[order[k]]), 3) }
            writer.write(0, 1)  // every length is sent
            let extraBits = [16: 2, 17: 3, 18: 7]
            for entry in symbols {
                writer.write(UInt32(codeLengthCode.codes[entry.symbol]), Int(codeLengthCode.lengths[entry.symbol]))
                if let bits = extraBits[entry.symbol] { writer.write(entry.extra, bits) }
            }
        }
    }
}
