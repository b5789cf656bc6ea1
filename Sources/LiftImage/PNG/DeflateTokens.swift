/// Receives the tokens `DeflateTokenizer` cuts a byte string into: literals and matches.
protocol DeflateTokenSink {
    /// One literal byte.
    mutating func literal(_ byte: UInt8)
    /// Eight literal bytes: the first in the low byte of `word` (a little-endian load).
    mutating func literals(_ word: UInt64)
    /// A match of `length` bytes (3…258) at distance 1 (`pixel` false) or one pixel back (`pixel` true).
    mutating func match(_ length: Int, pixel: Bool)
}

/// fpnge-style tokens for filtered PNG rows: literals, runs of zero bytes (one literal 0, then matches
/// at distance 1: deflate's run-length encoding), and runs of whole pixels repeating the one before
/// (matches at distance = bytes per pixel).
///
/// After row filtering, zeros are what long runs are made of: fully transparent pixels whose colour is
/// 0 (filter None), a row equal to the one above (Up), flat colour (Sub). A repeated pixel is what a
/// smooth gradient or a constant alpha leaves after the filters (residuals like 1 0 0 0, 1 0 0 0).
/// Longer distances (a row back: the Up filter already removes them) were not searched.
///
/// The scan goes 8 bytes at a time. A zero run is found only where a whole 8-byte word at the scan
/// position is zero (so every run is at least 8 bytes); it then takes in the zeros that end the word
/// before it and begin the word after it. A pixel run is found where a whole word equals the 8 bytes
/// one pixel before it, and ends at the first byte that differs. Words that start neither go to the
/// sink whole, zeros included, with no branch per byte: photo residuals are ~10 % zeros, and
/// branching on each cost more than the short runs save (`Benchmarks/RESULTS.md`, "Fast PNG compressor").
enum DeflateTokenizer {
    /// deflate's longest match.
    static let maximumMatch = 258

    /// Passes `count` bytes at `data` to `sink` as tokens (the same tokens every time, so a counting
    /// pass and a writing pass agree). `pixelBytes` (1…8) is the distance of pixel runs.
    @inline(__always)
    static func tokenize<Sink: DeflateTokenSink>(_ data: UnsafePointer<UInt8>, count: Int, pixelBytes: Int, into sink: inout Sink) {
        var i = 0
        while i &+ 8 <= count {
            let word = load(data + i)
            if word == 0 {
                i &+= zeroRun(data + i, limit: count &- i, into: &sink)
                continue
            }
            if i >= pixelBytes {
                let same = word ^ load(data + (i &- pixelBytes))
                if same & 0xFFFF_FFFF == 0 {
                    i &+= pixelRun(data + i, limit: count &- i, pixelBytes: pixelBytes, into: &sink)
                    continue
                }
                if same &>> 32 == 0 {
                    for k in 0..<4 { sink.literal(UInt8(truncatingIfNeeded: word &>> UInt64(truncatingIfNeeded: k &* 8))) }
                    i &+= 4
                    i &+= pixelRun(data + i, limit: count &- i, pixelBytes: pixelBytes, into: &sink)
                    continue
                }
            }
            if i &+ 16 <= count && load(data + (i &+ 8)) == 0 {
                // The zeros that end this word start the run that the next word continues.
                let literals = 8 &- word.leadingZeroBitCount &>> 3
                for k in 0..<literals { sink.literal(UInt8(truncatingIfNeeded: word &>> UInt64(truncatingIfNeeded: k &* 8))) }
                i &+= literals
                i &+= zeroRun(data + i, limit: count &- i, into: &sink)
                continue
            }
            sink.literals(word)
            i &+= 8
        }
        while i < count {
            sink.literal(data[i])
            i &+= 1
        }
    }

    @inline(__always)
    private static func load(_ bytes: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes).loadUnaligned(as: UInt64.self))
    }

    /// Emits the run of zeros at `bytes` (at least 8 bytes long, up to `limit`) as a literal 0 and
    /// matches at distance 1; returns its length.
    @inline(__always)
    private static func zeroRun<Sink: DeflateTokenSink>(_ bytes: UnsafePointer<UInt8>, limit: Int, into sink: inout Sink) -> Int {
        var run = 8
        while true {
            if run &+ 8 > limit {
                while run < limit && bytes[run] == 0 { run &+= 1 }
                break
            }
            let word = load(bytes + run)
            if word != 0 {
                run &+= word.trailingZeroBitCount &>> 3
                break
            }
            run &+= 8
        }
        sink.literal(0)
        emitMatches(run &- 1, pixel: false, into: &sink)
        return run
    }

    /// Emits the bytes at `bytes` that repeat those `pixelBytes` before them (at least 8, up to
    /// `limit`) as matches at that distance; returns how many.
    @inline(__always)
    private static func pixelRun<Sink: DeflateTokenSink>(_ bytes: UnsafePointer<UInt8>, limit: Int, pixelBytes: Int,
                                                         into sink: inout Sink) -> Int {
        var run = 4
        while true {
            if run &+ 8 > limit {
                while run < limit && bytes[run] == bytes[run &- pixelBytes] { run &+= 1 }
                break
            }
            let difference = load(bytes + run) ^ load(bytes + (run &- pixelBytes))
            if difference != 0 {
                run &+= difference.trailingZeroBitCount &>> 3
                break
            }
            run &+= 8
        }
        emitMatches(run, pixel: true, into: &sink)
        return run
    }

    /// Emits `length` (≥ 3) bytes as matches of 3…258 bytes: 258 at a time, except that the last two
    /// share what is left so that neither is shorter than 3.
    @inline(__always)
    private static func emitMatches<Sink: DeflateTokenSink>(_ length: Int, pixel: Bool, into sink: inout Sink) {
        var left = length
        while left > 0 {
            let match = left > maximumMatch &+ 2 ? maximumMatch : left > maximumMatch ? left &- 3 : left
            sink.match(match, pixel: pixel)
            left &-= match
        }
    }
}

/// deflate's length codes (RFC 1951 §3.2.5): for each match length 3…258, its literal/length symbol
/// (257…285) and the extra bits that follow the symbol's code.
enum DeflateLengthCode {
    /// Per length (index = length, 0…2 unused): symbol, number of extra bits, their value.
    static let table: [(symbol: Int, extraBits: Int, extra: Int)] = {
        let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
        let extraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        var table = [(symbol: Int, extraBits: Int, extra: Int)](repeating: (0, 0, 0), count: 259)
        for length in 3...258 {
            // The last code whose base is ≤ length (258 has its own code, 285, rather than 284's top).
            let code = bases.lastIndex { $0 <= length } ?? 0
            table[length] = (257 + code, extraBits[code], length - bases[code])
        }
        return table
    }()
}
