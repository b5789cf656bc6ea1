import CZlib
import Foundation
import LiftImage
import TestSupport
import Testing

/// The RGBA expansion of `samples` in `layout` (grey replicated, missing alpha = `opaque`).
func expandToRGBA<T: FixedWidthInteger>(_ samples: [T], layout: PNGSamples.Layout, opaque: T) -> [T] {
    let c = layout.channels
    var out: [T] = []
    out.reserveCapacity(samples.count / c * 4)
    for i in stride(from: 0, to: samples.count, by: c) {
        switch layout {
        case .gray: out += [samples[i], samples[i], samples[i], opaque]
        case .grayAlpha: out += [samples[i], samples[i], samples[i], samples[i + 1]]
        case .rgb: out += [samples[i], samples[i + 1], samples[i + 2], opaque]
        case .rgba: out += Array(samples[i..<(i + 4)])
        }
    }
    return out
}

@Suite struct PNGEncoderTests {
    static let sizes: [(Int, Int)] = [(1, 1), (1, 23), (23, 1), (17, 33), (4097, 3)]
    static let layouts: [PNGSamples.Layout] = [.gray, .grayAlpha, .rgb, .rgba]

    /// Random samples with smooth areas and noise, so every filter gets chosen somewhere.
    static func randomSamples<T: FixedWidthInteger & UnsignedInteger>(_ count: Int, _ rng: inout SeededGenerator) -> [T] {
        (0..<count).map { i in i % 7 < 3 ? T(truncatingIfNeeded: i / 5) : T.random(in: T.min...T.max, using: &rng) }
    }

    @Test(arguments: layouts, [false, true])
    func roundTrips8Bit(layout: PNGSamples.Layout, reduce: Bool) throws {
        var rng = SeededGenerator(seed: 8)
        for (w, h) in Self.sizes {
            let samples: [UInt8] = Self.randomSamples(w * h * layout.channels, &rng)
            let png = try PNGEncoder.encode(PNGSamples(width: w, height: h, layout: layout, storage: .eight(samples)),
                                            options: .init(reduceColorType: reduce))
            let decoded = try PNGDecoder.decode(png)
            #expect(decoded.image.width == w && decoded.image.height == h)
            #expect(decoded.image.pixels == expandToRGBA(samples, layout: layout, opaque: 255), "\(layout) \(w)x\(h)")
            if !reduce { #expect(decoded.info.header.bitDepth == 8) }
        }
    }

    @Test(arguments: layouts, [false, true])
    func roundTrips16Bit(layout: PNGSamples.Layout, reduce: Bool) throws {
        var rng = SeededGenerator(seed: 16)
        for (w, h) in Self.sizes {
            let samples: [UInt16] = Self.randomSamples(w * h * layout.channels, &rng)
            let png = try PNGEncoder.encode(PNGSamples(width: w, height: h, layout: layout, storage: .sixteen(samples)),
                                            options: .init(reduceColorType: reduce))
            let decoded = try PNGDecoder.decode16(png)
            #expect(decoded.image.pixels == expandToRGBA(samples, layout: layout, opaque: 65535), "\(layout) \(w)x\(h)")
            if !reduce { #expect(decoded.info.header.bitDepth == 16) }
        }
    }

    @Test(arguments: [UInt8(0), 1, 2, 3, 4])
    func everyFixedFilterAndLevelRoundTrips(filter: UInt8) throws {
        var rng = SeededGenerator(seed: UInt64(filter))
        let image = RGBAImage(width: 37, height: 11, pixels: Self.randomSamples(37 * 11 * 4, &rng))
        for level in [0, 1, 9] {
            for strategy in [PNGEncoder.Strategy.standard, .filtered, .rle, .huffmanOnly] {
                let options = PNGEncoder.Options(level: level, strategy: strategy, adaptiveFilter: false, fixedFilter: filter)
                #expect(try PNGDecoder.decode(PNGEncoder.encode(image, options: options)).image == image)
            }
        }
    }

    @Test func reductionPicksTheSmallestLosslessLayout() throws {
        func colorType(_ image: RGBAImage) throws -> (PNGColorType, Int) {
            let png = try PNGEncoder.encode(image, options: .init(reduceColorType: true))
            let decoded = try PNGDecoder.decode(png)
            #expect(decoded.image == image)
            return (decoded.info.header.colorType, decoded.info.header.bitDepth)
        }
        var rng = SeededGenerator(seed: 3)
        let n = 40 * 30
        let noisy: [UInt8] = (0..<(n * 4)).map { _ in UInt8.random(in: 0...254, using: &rng) }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: noisy)) == (.rgba, 8))
        let opaque = noisy.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: opaque)) == (.rgb, 8))
        let grey = (0..<n).flatMap { i -> [UInt8] in let v = noisy[i * 4]; return [v, v, v, 255] }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: grey)) == (.gray, 8))
        let greyAlpha = (0..<n).flatMap { i -> [UInt8] in let v = noisy[i * 4]; return [v, v, v, noisy[i * 4 + 1]] }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: greyAlpha)) == (.grayAlpha, 8))
        let mask = (0..<n).flatMap { i -> [UInt8] in let v: UInt8 = noisy[i * 4] > 128 ? 255 : 0; return [v, v, v, 255] }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: mask)) == (.gray, 1))
        let levels = (0..<n).flatMap { i -> [UInt8] in let v = noisy[i * 4] / 17 * 17; return [v, v, v, 255] }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: levels)) == (.gray, 4))
        let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 128], [0, 0, 255, 0], [9, 9, 9, 255], [1, 2, 3, 4]]
        let few = (0..<n).flatMap { i in colours[Int(noisy[i * 4]) % colours.count] }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: few)) == (.palette, 4))
        let many = (0..<n).flatMap { i -> [UInt8] in [UInt8(i % 200), UInt8(i % 200 / 2), 7, 255] }
        #expect(try colorType(RGBAImage(width: 40, height: 30, pixels: many)) == (.palette, 8))
    }

    @Test func fastModeShrinksHardMasksToOneBit() throws {
        let mask = GrayImage(width: 300, height: 200, pixels: (0..<60000).map { i in (i % 300) * (i / 300) > 9000 ? 255 : 0 })
        let png = try PNGEncoder.encode(mask, options: .fast)
        let decoded = try PNGDecoder.decode(png)
        #expect(decoded.info.header.colorType == .gray && decoded.info.header.bitDepth == 1)
        #expect(decoded.image.pixels == expandToRGBA(mask.pixels, layout: .gray, opaque: 255))
        #expect(png.count < 2000)
    }

    @Test func writesMetadataChunks() throws {
        let metadata = PNGMetadata(gAMA: [0, 0, 0xB1, 0x8F], sRGB: [0], pHYs: [0, 0, 1, 0, 0, 0, 1, 0, 1], eXIf: [0x4D, 0x4D, 0, 0x2A])
        let png = try PNGEncoder.encode(RGBAImage(width: 2, height: 2, fill: (1, 2, 3, 4)), options: .init(metadata: metadata))
        #expect(try PNGDecoder.decode(png).info.metadata == metadata)
    }

    @Test func rejectsBadInput() {
        #expect(throws: PNGEncodingError.sampleCountMismatch(expected: 12, actual: 11)) {
            try PNGEncoder.encode(PNGSamples(width: 2, height: 2, layout: .rgb, storage: .eight([UInt8](repeating: 0, count: 11))))
        }
        #expect(throws: PNGEncodingError.invalidDimensions(width: 0, height: 5)) {
            try PNGEncoder.encode(PNGSamples(width: 0, height: 5, layout: .gray, storage: .eight([])))
        }
        #expect(throws: PNGEncodingError.invalidFilterType(5)) {
            try PNGEncoder.encode(GrayImage(width: 1, height: 1), options: .init(adaptiveFilter: false, fixedFilter: 5))
        }
        #expect(throws: PNGEncodingError.invalidCompressionLevel(10)) {
            try PNGEncoder.encode(GrayImage(width: 1, height: 1), options: .init(level: 10))
        }
    }
}

@Suite struct PNGFlatRowTests {
    /// Wide masks with flat runs, every row Paeth-filtered: the decoder's flat-run shortcut must give
    /// exactly what the per-byte predictor gives, including runs that end at a row's last byte.
    @Test(arguments: [UInt8(1), 4])
    func flatMasksRoundTripThroughEveryPathOfTheFilter(filter: UInt8) throws {
        var rng = SeededGenerator(seed: 99)
        for width in [31, 32, 33, 64, 65, 300] {
            let height = 9
            var pixels = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width where x > width / 3 && y > 2 { pixels[y * width + x] = 255 }
                if y % 3 == 1 { pixels[y * width + Int.random(in: 0..<width, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            }
            let mask = GrayImage(width: width, height: height, pixels: pixels)
            let png = try PNGEncoder.encode(mask, options: .init(adaptiveFilter: false, fixedFilter: filter))
            #expect(try PNGDecoder.decodeGray(png).image == mask, "width \(width)")
        }
    }
}

@Suite struct PNGSegmentTests {
    /// Images tall enough that rows cross the encoder's 256 KiB deflate segments and the decoder's
    /// 128 KiB batches, so the hand-over between segments (previous row for the filters, the 32 KiB
    /// dictionary, the joined Adler-32) and between batches is exercised in both directions.
    @Test func tallImagesRoundTripAcrossSegments() throws {
        var rng = SeededGenerator(seed: 2026)
        let (w, h) = (1500, 520)
        let rgb: [UInt8] = PNGEncoderTests.randomSamples(w * h * 3, &rng)
        let png = try PNGEncoder.encode(PNGSamples(width: w, height: h, layout: .rgb, storage: .eight(rgb)), options: .init(level: 1))
        #expect(try PNGDecoder.decode(png).image.pixels == expandToRGBA(rgb, layout: .rgb, opaque: 255))
        let gray16: [UInt16] = PNGEncoderTests.randomSamples(w * h, &rng)
        let png16 = try PNGEncoder.encode(PNGSamples(width: w, height: h, layout: .gray, storage: .sixteen(gray16)), options: .init(level: 1))
        #expect(try PNGDecoder.decode16(png16).image.pixels == expandToRGBA(gray16, layout: .gray, opaque: 65535))
    }

    /// Segments are cut by size, not by thread count: every thread count writes the same file, and
    /// it decodes to the image (rows wider than a segment included: one row per segment then; and
    /// one-pixel rows, whose 32 KiB dictionary spans thousands of rows).
    @Test(arguments: [(1200, 700), (400_000, 3), (1, 400_000)])
    func everyThreadCountWritesTheSameFile(width: Int, height: Int) throws {
        var rng = SeededGenerator(seed: 7)
        let pixels: [UInt8] = PNGEncoderTests.randomSamples(width * height * 4, &rng)
        let image = RGBAImage(width: width, height: height, pixels: pixels)
        let files = try [1, 2, 3, 5].map { try PNGEncoder.encode(image, options: .init(level: 1, threads: $0)) }
        for file in files.dropFirst() { #expect(file == files[0]) }
        #expect(try PNGDecoder.decode(files[0]).image == image)
    }

    /// The segments cost almost nothing in size: a photo-like image is within 0.5 % of one zlib
    /// stream of the same filtered rows (compressed here with zlib's own `compress2`).
    @Test func segmentingCostsAlmostNoSize() throws {
        let (w, h) = (1024, 1024)
        var pixels = [UInt8](repeating: 255, count: w * h * 4)
        var rng = SeededGenerator(seed: 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                pixels[i] = UInt8(truncatingIfNeeded: x / 3 + y / 5 + Int(rng.next() % 6))
                pixels[i + 1] = UInt8(truncatingIfNeeded: (x * y) >> 9)
                pixels[i + 2] = UInt8(truncatingIfNeeded: y / 2 + Int(rng.next() % 4))
            }
        }
        let segmented = try PNGEncoder.encode(RGBAImage(width: w, height: h, pixels: pixels), options: .init(strategy: .standard, adaptiveFilter: false, fixedFilter: 1))
        // Sub-filtered rows, as the encoder wrote them, in one stream.
        var filtered = [UInt8]()
        filtered.reserveCapacity(h * (w * 4 + 1))
        for y in 0..<h {
            filtered.append(1)
            for x in 0..<(w * 4) { filtered.append(pixels[y * w * 4 + x] &- (x >= 4 ? pixels[y * w * 4 + x - 4] : 0)) }
        }
        let serial = try zlibCompressedSize(filtered, level: 6)
        let idat = idatBytes(segmented)
        #expect(idat > (1 << 20) && Double(idat) < Double(serial) * 1.005, "segmented \(idat) vs serial \(serial)")
    }

    /// Total payload of the IDAT chunks (the zlib stream) of a well-formed PNG.
    private func idatBytes(_ png: [UInt8]) -> Int {
        var offset = 8, total = 0
        while offset + 8 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if png[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) { total += length }
            offset += 12 + length
        }
        return total
    }

    /// Size of `bytes` compressed by zlib in one call, at `level` (default strategy, as `compress2`).
    private func zlibCompressedSize(_ bytes: [UInt8], level: Int32) throws -> Int {
        var size = compressBound(UInt(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = compress2(&out, &size, bytes, UInt(bytes.count), level)
        try #require(status == Z_OK)
        return Int(size)
    }
}
