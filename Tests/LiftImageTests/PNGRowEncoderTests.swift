import LiftImage
import Testing
import TestSupport

/// `PNGEncoder.encode(width:height:layout:…row:)` writes the file `encode(_ samples:)` writes for the
/// same rows, whatever layout the survey settles on and wherever it settles.
@Suite struct PNGRowEncoderTests {
    /// An image whose pixels `color(x, y)` gives.
    static func samples(width: Int, height: Int, layout: PNGSamples.Layout,
                        _ color: (Int, Int) -> [UInt8]) -> PNGSamples {
        var bytes: [UInt8] = []
        for y in 0 ..< height { for x in 0 ..< width { bytes += color(x, y).prefix(layout.channels) } }
        return PNGSamples(width: width, height: height, layout: layout, storage: .eight(bytes))
    }

    static func cases() -> [(String, PNGSamples, Bool)] {
        var generator = SeededGenerator(seed: 11)
        let noise = (0 ..< 4096).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        return [
            ("two greys", samples(width: 19, height: 7, layout: .rgba) { x, _ in x % 3 == 0 ? [255, 255, 255, 255] : [0, 0, 0, 255] }, true),
            ("grey ramp with alpha", samples(width: 30, height: 9, layout: .rgba) { x, y in [UInt8(x * 8), UInt8(x * 8), UInt8(x * 8), UInt8(y * 20)] }, false),
            ("200 colours", samples(width: 40, height: 10, layout: .rgba) { x, y in [UInt8((x + y * 40) % 200), 7, 9, 255] }, true),
            ("colour noise, opaque", samples(width: 31, height: 40, layout: .rgba) { x, y in
                [noise[(x + y * 31) % 4096], noise[(x * 3 + y) % 4096], noise[(y * 7 + x) % 4096], 255] }, true),
            ("colour noise, soft alpha", samples(width: 31, height: 40, layout: .rgba) { x, y in
                [noise[(x + y * 31) % 4096], noise[(x * 3 + y) % 4096], 5, noise[(x * 5 + y) % 4096]] }, false),
            // Grey and one colour down to the last row, where 300 new colours come: the survey reads every row.
            ("colours in the last row", samples(width: 300, height: 6, layout: .rgba) { x, y in
                y == 5 ? [UInt8(x % 256), UInt8(x / 256), 1, 255] : [9, 9, 9, 0] }, false),
            ("transparent top, then a subject", samples(width: 50, height: 60, layout: .rgba) { x, y in
                y < 30 ? [0, 0, 0, 0] : [noise[(x + y * 50) % 4096], 90, noise[(x * y) % 4096], UInt8(min(255, x * 6))] }, false),
            ("RGB noise", samples(width: 25, height: 30, layout: .rgb) { x, y in [noise[(x + y * 25) % 4096], 3, noise[(x + y) % 4096]] }, true),
            ("grey", samples(width: 25, height: 30, layout: .gray) { x, y in [UInt8((x * y) % 256)] }, true),
        ]
    }

    @Test func rowsGiveTheWholeImagesFile() throws {
        for (name, image, opaque) in Self.cases() {
            guard case .eight(let bytes) = image.storage else { continue }
            let rowSamples = image.width * image.layout.channels
            for reduce in [true, false] {
                for threads in [1, 2] {
                    let options = PNGEncoder.Options(level: 4, reduceColorType: reduce, threads: threads)
                    let whole = try PNGEncoder.encode(image, options: options)
                    let rows = try PNGEncoder.encode(width: image.width, height: image.height, layout: image.layout, options: options,
                                                     opaqueKnown: opaque) { y, out in
                        bytes.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + y * rowSamples, count: rowSamples) }
                    }
                    #expect(rows == whole, "\(name), reduce \(reduce), \(threads) threads")
                }
            }
        }
    }

    @Test func badSizesAreRefused() {
        #expect(throws: PNGEncodingError.invalidDimensions(width: 0, height: 3)) {
            try PNGEncoder.encode(width: 0, height: 3, layout: .rgba) { _, _ in }
        }
        #expect(throws: PNGEncodingError.invalidDimensions(width: .max, height: 1)) {
            try PNGEncoder.encode(width: .max, height: 1, layout: .rgba) { _, _ in }
        }
    }
}
