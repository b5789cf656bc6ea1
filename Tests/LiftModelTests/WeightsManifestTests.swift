import Foundation
import LiftModel
import Testing
import TestSupport

/// SHA-256 against FIPS 180-4's examples, and the shipped weights' manifest against the files and
/// `Weights/PROVENANCE.md`.
@Suite struct WeightsManifestTests {
    @Test func sha256MatchesTheStandardsExamples() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // 56 bytes: the length no longer fits the first padded block.
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Every tail length around a block boundary, against the same bytes hashed in one piece by a slower route.
        for length in 55 ... 65 {
            let bytes = (0 ..< length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(SHA256.digest(bytes).count == 32)
            #expect(SHA256.hex(bytes) != SHA256.hex(bytes + [0]))
        }
    }

    @Test func theShippedManifestListsEveryWeightFileWithItsDigestAndProvenanceAgrees() throws {
        let weights = Fixtures.repositoryRoot.appendingPathComponent("Weights")
        let provenance = try String(contentsOf: weights.appendingPathComponent("PROVENANCE.md"), encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: weights.path).filter { $0.hasSuffix(".safetensors") }
        // Every shipped model has its file, and only they and the instance heads' file the subject model names.
        let models = Set(ModelName.allCases.map(\.fileName))
        let heads = try Set(models.compactMap { try SafeTensors(contentsOf: weights.appendingPathComponent($0)).metadata["lift.instance-heads"] })
        #expect(heads == ["subject-instances.safetensors"])
        #expect(Set(files) == models.union(heads))
        for name in files {
            let url = weights.appendingPathComponent(name)
            let recorded = try #require(try WeightsManifest.recordedDigest(for: url), "\(name) is not in SHA256SUMS")
            #expect(recorded == SHA256.hex([UInt8](try Data(contentsOf: url))), "\(name)")
            #expect(provenance.contains(recorded), "PROVENANCE.md does not give \(name)'s sha256 \(recorded)")
        }
    }

    @Test func aMissingOrSilentManifestChecksNothingAndABrokenOneIsAnError() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let model = scratch.url.appendingPathComponent("m.safetensors")
        #expect(try WeightsManifest.recordedDigest(for: model) == nil)
        try scratch.write(Array((String(repeating: "ab", count: 32) + "  other.safetensors\n").utf8), to: "SHA256SUMS")
        #expect(try WeightsManifest.recordedDigest(for: model) == nil)
        try scratch.write(Array((String(repeating: "AB", count: 32) + "  m.safetensors\n").utf8), to: "SHA256SUMS")
        #expect(try WeightsManifest.recordedDigest(for: model) == String(repeating: "ab", count: 32))
        try scratch.write(Array("not a digest  m.safetensors\n".utf8), to: "SHA256SUMS")
        let error = #expect(throws: WeightsManifest.InvalidManifest.self) { try WeightsManifest.recordedDigest(for: model) }
        #expect(error?.description == "cannot use the weight digests in \(scratch.path("SHA256SUMS")): "
            + "line 1 is not a sha256 digest, two spaces and a file name")
    }

    @Test func aModelWhoseBytesDoNotMatchTheirDigestIsRefused() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Weights/person.safetensors")
        let digest = SHA256.hex([UInt8](try Data(contentsOf: url)))
        _ = try Model(contentsOf: url, expectedSHA256: digest)
        let wrong = String(repeating: "0", count: 64)
        #expect(throws: SafeTensorsError.digestMismatch(path: url.path, expected: wrong, actual: digest)) {
            try Model(contentsOf: url, expectedSHA256: wrong)
        }
    }
}
