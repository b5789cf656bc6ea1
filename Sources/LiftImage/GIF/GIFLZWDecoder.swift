/// GIF's variable-length LZW: codes read least significant bit first, starting one bit wider than
/// the minimum code size and widening whenever the next free entry reaches the width's limit, up
/// to 12 bits; a clear code resets the dictionary; once the dictionary holds 4096 entries it stops
/// growing and the codes stay 12 bits until a clear code (the "deferred clear" encoders use).
///
/// The decoded indices are handed out row by row through a buffer of twice a row plus the longest
/// string, so memory stays small whatever the frame's size, and decoding stops after
/// `width * height` indices, so a frame never produces more than it declared.
struct GIFLZWDecoder {
    /// Entries the dictionary can hold (12-bit codes).
    private static let maxEntries = 4096

    /// Why the LZW data is wrong.
    enum Failure: Error {
        case codeNotInDictionary(code: Int, next: Int)
        case stringAfterClear(code: Int)
    }

    /// Decodes `data` for a `width x height` frame with `minimumCodeSize` (2...8, checked by the
    /// caller), calling `row(r, indices)` with the `width` indices of each whole row in stored order.
    /// - Returns: the indices decoded, `width * height` unless the data ends (an end code or its
    ///   last byte) before the frame is full.
    static func decode(_ data: [UInt8], minimumCodeSize: Int, width: Int, height: Int,
                       row: (_ storedRow: Int, _ indices: UnsafePointer<UInt8>) -> Void) throws(Failure) -> Int {
        let total = width * height
        guard total > 0 else { return 0 }
        let clear = 1 << minimumCodeSize, end = clear + 1
        let prefix = UnsafeMutablePointer<UInt16>.allocate(capacity: maxEntries)
        let suffix = UnsafeMutablePointer<UInt8>.allocate(capacity: maxEntries)
        let first = UnsafeMutablePointer<UInt8>.allocate(capacity: maxEntries)
        let length = UnsafeMutablePointer<Int>.allocate(capacity: maxEntries)
        let capacity = 2 * (width + maxEntries)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer {
            prefix.deallocate(); suffix.deallocate(); first.deallocate(); length.deallocate(); buffer.deallocate()
        }
        for code in 0 ..< clear {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
            length[code] = 1
        }

        var codeSize = minimumCodeSize + 1, next = clear + 2, previous = -1
        var bits: UInt64 = 0, bitCount = 0, byteIndex = 0
        // Indices in `buffer[consumed..<filled]` are decoded but not yet handed out as a row.
        var filled = 0, consumed = 0, rowsOut = 0, produced = 0
        decoding: while produced < total {
            while bitCount < codeSize {
                guard byteIndex < data.count else { break decoding }
                bits |= UInt64(data[byteIndex]) << UInt64(bitCount)
                byteIndex += 1
                bitCount += 8
            }
            let code = Int(bits & ((1 << UInt64(codeSize)) - 1))
            bits >>= UInt64(codeSize)
            bitCount -= codeSize

            if code == clear {
                codeSize = minimumCodeSize + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { break }
            if previous < 0 {
                guard code < clear else { throw .stringAfterClear(code: code) }
            } else if next < maxEntries {
                guard code <= next else { throw .codeNotInDictionary(code: code, next: next) }
                // The new entry is the previous string plus the first index of this one; for the
                // code being defined right now (KwKwK) that first index is the previous string's.
                prefix[next] = UInt16(previous)
                suffix[next] = code == next ? first[previous] : first[code]
                first[next] = first[previous]
                length[next] = length[previous] + 1
                next += 1
                if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
            } else if code >= next {
                throw .codeNotInDictionary(code: code, next: next)
            }
            previous = code

            // Write the string backwards from its last index, then hand out whole rows.
            if filled + maxEntries > capacity {
                buffer.update(from: buffer + consumed, count: filled - consumed)
                filled -= consumed
                consumed = 0
            }
            let count = min(length[code], total - produced)
            var entry = code
            for _ in 0 ..< length[code] - count { entry = Int(prefix[entry]) }
            var slot = filled + count - 1
            while slot >= filled {
                buffer[slot] = suffix[entry]
                entry = Int(prefix[entry])
                slot -= 1
            }
            filled += count
            produced += count
            while filled - consumed >= width {
                row(rowsOut, buffer + consumed)
                rowsOut += 1
                consumed += width
            }
        }
        return produced
    }
}
