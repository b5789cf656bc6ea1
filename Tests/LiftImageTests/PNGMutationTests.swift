import Foundation
import LiftImage
import TestSupport
import Testing

/// A seeded mutation run inside `swift test` (the libFuzzer target in Tests/Fuzz/FuzzPNG runs far longer):
/// random byte changes to corpus files, with chunk CRCs repaired so the changes reach the structure and
/// the image data. Every outcome must be pixels or one of the PNG error types, never a crash.
@Suite struct PNGMutationTests {
    /// Recomputes every chunk's CRC so mutations are not all stopped by the CRC check.
    static func repairCRCs(_ file: [UInt8]) -> [UInt8] {
        var out = file
        for chunk in PNGBytes.chunks(file) where chunk.offset + chunk.length <= out.count {
            let crc = PNGBytes.crc32(Array(out[(chunk.offset + 4)..<(chunk.offset + chunk.length - 4)]))
            out.replaceSubrange((chunk.offset + chunk.length - 4)..<(chunk.offset + chunk.length), with: PNGBytes.be32(crc))
        }
        return out
    }

    @Test(arguments: ["ct2-d08-plain", "ct3-d04-adam7", "ct0-d16-adam7", "key-ct2-d16", "metadata-ct2-d08", "ct6-d08-adam7"])
    func mutatedFilesDecodeOrThrowTypedErrors(name: String) throws {
        let original = try Fixtures.bytes("png/\(name).png")
        var rng = SeededGenerator(seed: UInt64(name.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
        for round in 0..<300 {
            var file = original
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 8..<file.count, using: &rng)
                file[i] = round % 3 == 0 ? file[i] ^ (1 << UInt8.random(in: 0...7, using: &rng)) : UInt8.random(in: 0...255, using: &rng)
            }
            if round % 2 == 0 { file = Self.repairCRCs(file) }
            if round % 7 == 0 { file = Array(file.prefix(Int.random(in: 8...file.count, using: &rng))) }
            do {
                let image = try PNGDecoder.decode(file, limits: DecodingLimits(maxPixels: 1 << 20))
                #expect(image.image.pixels.count == image.image.width * image.image.height * 4)
            } catch is PNGLexingError {
            } catch is PNGParsingError {
            } catch is PNGDataError {
            } catch {
                Issue.record("untyped error \(error) in round \(round)")
            }
        }
    }
}
