import CZlib
import LiftImage
import TestSupport
import Testing

/// The fast compressor (`PNGEncoder.Compressor.fast`): every file it writes is a valid zlib stream
/// (checked by zlib's own `uncompress`, Adler-32 included) that decodes to the source exactly.
@Suite struct PNGFastEncoderTests {
    static let sizes: [(Int, Int)] = [(1, 1), (1, 23), (23, 1), (17, 33), (4097, 3), (301, 217)]

    /// The image data of `png` (its IDAT payloads joined) inflated by zlib; `expected` is its length.
    static func inflate(_ png: [UInt8], expected: Int) throws -> [UInt8] {
        var stream: [UInt8] = []
        for chunk in PNGBytes.chunks(png) where chunk.type == "IDAT" {
            stream += png[(chunk.offset + 8)..<(chunk.offset + chunk.length - 4)]
        }
        var out = [UInt8](repeating: 0, count: expected + 1)
        var length = UInt(out.count)
        let status = uncompress(&out, &length, stream, UInt(stream.count))
        try #require(status == Z_OK, "uncompress returned \(status)")
        #expect(Int(length) == expected)
        return Array(out[0..<Int(length)])
    }

    static func encode(_ samples: PNGSamples, reduce: Bool = false, threads: Int? = nil) throws -> [UInt8] {
        try PNGEncoder.encode(samples, options: .init(compressor: .fast, reduceColorType: reduce, threads: threads))
    }

    @Test(arguments: PNGEncoderTests.layouts, [false, true])
    func roundTrips8Bit(layout: PNGSamples.Layout, reduce: Bool) throws {
        var rng = SeededGenerator(seed: 81)
        for (w, h) in Self.sizes {
            let samples: [UInt8] = PNGEncoderTests.randomSamples(w * h * layout.channels, &rng)
            let png = try Self.encode(PNGSamples(width: w, height: h, layout: layout, storage: .eight(samples)), reduce: reduce)
            let decoded = try PNGDecoder.decode(png)
            #expect(decoded.image.pixels == expandToRGBA(samples, layout: layout, opaque: 255), "\(layout) \(w)x\(h)")
            if !reduce { _ = try Self.inflate(png, expected: h * (w * layout.channels + 1)) }
        }
    }

    @Test(arguments: PNGEncoderTests.layouts)
    func roundTrips16Bit(layout: PNGSamples.Layout) throws {
        var rng = SeededGenerator(seed: 161)
        for (w, h) in Self.sizes {
            let samples: [UInt16] = PNGEncoderTests.randomSamples(w * h * layout.channels, &rng)
            let png = try Self.encode(PNGSamples(width: w, height: h, layout: layout, storage: .sixteen(samples)))
            #expect(try PNGDecoder.decode16(png).image.pixels == expandToRGBA(samples, layout: layout, opaque: 65535), "\(layout) \(w)x\(h)")
            _ = try Self.inflate(png, expected: h * (w * layout.channels * 2 + 1))
        }
    }

    /// Fully transparent rows whose colour is 0: each row is one run of zeros, so an image of them
    /// costs about 2 bits per 258 bytes.
    @Test func allZeroImagesCostAlmostNothing() throws {
        for (w, h, layout) in [(1, 1, PNGSamples.Layout.rgba), (1000, 500, .rgba), (999, 1, .gray), (3, 700, .grayAlpha)] {
            let samples = [UInt8](repeating: 0, count: w * h * layout.channels)
            let png = try Self.encode(PNGSamples(width: w, height: h, layout: layout, storage: .eight(samples)))
            let raw = h * (w * layout.channels + 1)
            #expect(try Self.inflate(png, expected: raw) == [UInt8](repeating: 0, count: raw))
            #expect(png.count <= 120 + raw / 500, "\(w)x\(h) \(layout): \(png.count) bytes")
        }
    }

    /// Rows equal to the row above (Up filter: all zeros) cost as little as transparent ones.
    @Test func repeatedRowsCostAlmostNothing() throws {
        var rng = SeededGenerator(seed: 5)
        let (w, h) = (800, 400)
        let first: [UInt8] = (0..<(w * 4)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let pixels = [[UInt8]](repeating: first, count: h).flatMap { $0 }
        let png = try PNGEncoder.encode(RGBAImage(width: w, height: h, pixels: pixels), options: .init(compressor: .fast))
        #expect(try PNGDecoder.decode(png).image.pixels == pixels)
        #expect(png.count < w * 4 + 300 + h * w * 4 / 500, "\(png.count) bytes")
    }

    /// Noise compresses to nothing: the segments are stored, 5 bytes per 64 KiB more than the rows.
    @Test func noiseGrowsByLessThanATenthOfAPercent() throws {
        var rng = SeededGenerator(seed: 11)
        let (w, h) = (700, 400)
        let pixels: [UInt8] = (0..<(w * h * 4)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let png = try PNGEncoder.encode(RGBAImage(width: w, height: h, pixels: pixels), options: .init(compressor: .fast))
        #expect(try PNGDecoder.decode(png).image.pixels == pixels)
        let raw = h * (w * 4 + 1)
        #expect(png.count <= raw + raw / 1000 + 100, "\(png.count) bytes for \(raw) filtered bytes")
    }

    /// Runs of zeros and of repeated pixels of every length around deflate's limits (3, 258 and the
    /// split of 259…261 into two matches), at pixel distances 1 (grey), 3, 4, 6 and 8 (16-bit RGBA, a
    /// distance code with an extra bit), and ending at the row's and the segment's end.
    @Test func runsOfEveryLengthRoundTrip() throws {
        var rng = SeededGenerator(seed: 258)
        let lengths = Array(1...20) + Array(250...270) + [515, 516, 517, 518, 1031, 1032, 1033]
        var row8: [UInt8] = []
        for length in lengths {
            row8 += [UInt8](repeating: 0, count: length)
            let pixel = (0..<4).map { _ in UInt8.random(in: 1...255, using: &rng) }
            for _ in 0..<(length / 4 + 1) { row8 += pixel }
            row8.append(UInt8.random(in: 1...255, using: &rng))
        }
        for layout in PNGEncoderTests.layouts {
            let width = row8.count / layout.channels, height = 7
            let rows = (0..<height).flatMap { y in y % 3 == 2 ? [UInt8](repeating: 0, count: width * layout.channels)
                                                             : Array(row8[0..<(width * layout.channels)]) }
            let eight = try Self.encode(PNGSamples(width: width, height: height, layout: layout, storage: .eight(rows)))
            #expect(try PNGDecoder.decode(eight).image.pixels == expandToRGBA(rows, layout: layout, opaque: 255), "\(layout)")
            let wide = rows.map { UInt16($0) * 257 }
            let sixteen = try Self.encode(PNGSamples(width: width, height: height, layout: layout, storage: .sixteen(wide)))
            #expect(try PNGDecoder.decode16(sixteen).image.pixels == expandToRGBA(wide, layout: layout, opaque: 65535), "\(layout) 16-bit")
        }
    }

    /// Segments are cut by size: 1, 2 and 3 threads write the same file, across many segments of a
    /// cut-out-like image (transparent rows, opaque white rows, a noisy subject with soft edges).
    @Test func everyThreadCountWritesTheSameFile() throws {
        var rng = SeededGenerator(seed: 12)
        let (w, h) = (1200, 700)
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                if y >= 600 {
                    pixels.replaceSubrange(i..<(i + 4), with: [255, 255, 255, 255])
                    continue
                }
                let d = ((x - 600) * (x - 600) + (y - 300) * (y - 300)) / 100
                guard d < 900 else { continue }
                pixels.replaceSubrange(i..<(i + 4), with: [UInt8(truncatingIfNeeded: x / 4 + Int(rng.next() % 8)), UInt8(truncatingIfNeeded: y / 3),
                                                         UInt8(truncatingIfNeeded: d), d > 800 ? UInt8(900 - d) * 2 : 255])
            }
        }
        let image = RGBAImage(width: w, height: h, pixels: pixels)
        let files = try [1, 2, 3].map { try PNGEncoder.encode(image, options: .init(compressor: .fast, threads: $0)) }
        for file in files.dropFirst() { #expect(file == files[0]) }
        #expect(try PNGDecoder.decode(files[0]).image == image)
        #expect(PNGBytes.chunks(files[0]).filter { $0.type == "IDAT" }.count > 5)
    }

    /// Rows made on demand (`encode(width:height:layout:…row:)`, how the CLI streams a cut-out) give the
    /// file of the whole image: each segment asks only for its rows and the one before them.
    @Test func rowsMadeOnDemandGiveTheWholeImagesFile() throws {
        var rng = SeededGenerator(seed: 67)
        let (w, h) = (67, 2100)  // 269 filtered bytes a row: 974 rows to a segment, three segments
        let pixels: [UInt8] = (0..<(w * h * 4)).map { i in i / (w * 4) % 300 < 120 ? 0 : UInt8.random(in: 0...40, using: &rng) }
        let image = PNGSamples(width: w, height: h, layout: .rgba, storage: .eight(pixels))
        for threads in [1, 2] {
            let options = PNGEncoder.Options(compressor: .fast, reduceColorType: true, threads: threads)
            let streamed = try pixels.withUnsafeBufferPointer { source in
                try PNGEncoder.encode(width: w, height: h, layout: .rgba, options: options) { y, out in
                    out.update(from: source.baseAddress! + y * w * 4, count: w * 4)
                }
            }
            #expect(streamed == (try PNGEncoder.encode(image, options: options)), "\(threads) threads")
        }
    }

    /// The compressor is chosen by the option alone: zlib's bytes stay as they were.
    @Test func zlibIsStillTheDefault() throws {
        let image = RGBAImage(width: 64, height: 64, pixels: (0..<(64 * 64 * 4)).map { UInt8(truncatingIfNeeded: $0 / 7) })
        #expect(PNGEncoder.Options().compressor == .zlib)
        let zlib = try PNGEncoder.encode(image), fast = try PNGEncoder.encode(image, options: .init(compressor: .fast))
        #expect(zlib != fast)
        #expect(try PNGDecoder.decode(fast).image == image)
    }
}

@Suite struct DeflateHuffmanCodeTests {
    /// Checks that every used symbol has a code, no code is longer than `limit`, and the code is
    /// complete (Kraft's sum Σ 2^-length is exactly 1).
    private func check(_ frequencies: [Int], limit: Int) {
        let lengths = DeflateHuffmanCode(frequencies: frequencies, limit: limit).lengths
        #expect(lengths.count == frequencies.count)
        #expect(lengths.allSatisfy { Int($0) <= limit })
        for (f, l) in zip(frequencies, lengths) where f > 0 { #expect(l > 0) }
        #expect(lengths.reduce(0) { $0 + ($1 == 0 ? 0 : 1 << (limit - Int($1))) } == 1 << limit, "\(frequencies)")
    }

    @Test func skewedFrequenciesAreLimitedTo15Bits() {
        // Fibonacci counts make an unconstrained Huffman tree as deep as there are symbols.
        var fibonacci = [1, 1]
        while fibonacci.count < 40 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        check(fibonacci + [Int](repeating: 0, count: 246), limit: 15)
        check(Array(fibonacci.prefix(19)), limit: 7)
        check((0..<286).map { 1 << min($0, 40) }, limit: 15)
    }

    @Test func randomFrequenciesGiveCompleteCodes() {
        var rng = SeededGenerator(seed: 286)
        for round in 0..<200 {
            let symbols = round % 2 == 0 ? 286 : 19
            let frequencies = (0..<symbols).map { _ in rng.next() % 3 == 0 ? 0 : Int(rng.next() % (1 << (rng.next() % 30))) }
            check(frequencies, limit: symbols == 19 ? 7 : 15)
        }
    }

    @Test func fewSymbolsStillMakeACompleteCode() {
        check([0, 0, 5, 0], limit: 15)
        check([0, 0, 0, 0], limit: 7)
        check([3, 0, 0, 9], limit: 15)
    }

    @Test func dyadicFrequenciesGetTheirExactLengths() {
        #expect(DeflateHuffmanCode(frequencies: [8, 4, 2, 1, 1, 0], limit: 15).lengths == [1, 2, 3, 4, 4, 0])
        // With a limit of 3 the two 4-bit codes move up and the 2-bit one splits to make room.
        #expect(DeflateHuffmanCode(frequencies: [8, 4, 2, 1, 1], limit: 3).lengths == [1, 3, 3, 3, 3])
    }
}
