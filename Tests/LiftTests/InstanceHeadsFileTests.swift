import Foundation
import Lift
import Testing
import TestSupport

/// A subject model whose instance heads are in a file of their own (GRAPH-FORMAT.md, "Instance
/// heads in their own file"; the parity fixture's seeded stand-in exported both ways): the lifter
/// finds them beside the model, loads them only when cues are asked for, and gives the same cues
/// as the inline form; a missing or broken heads file is an error naming it when cues are asked
/// for (and only then), a metadata entry that is not a file name beside the model is an error.
@Suite struct InstanceHeadsFileTests {
    static let photo = RGBAImage(width: 96, height: 64, pixels: (0 ..< 96 * 64).flatMap { i -> [UInt8] in
        let x = i % 96, y = i / 96
        let inside = (x - 30) * (x - 30) + (y - 32) * (y - 32) < 300 || (x - 62) * (x - 62) + (y - 32) * (y - 32) < 300
        return inside ? [200, UInt8(40 + x), 60, 255] : [20, 30, UInt8(y * 3), 255]
    })

    /// A scratch copy of the split pair (optionally without the heads file, or with the mask's
    /// metadata naming `heads` instead).
    private func splitCopy(withHeads: Bool = true, naming heads: String? = nil) throws -> (ScratchDirectory, ModelName) {
        let scratch = try ScratchDirectory()
        var mask = try Fixtures.bytes("instances/heads-split.safetensors")
        if let heads {
            let old = Array("heads-split-instances.safetensors".utf8), new = Array(heads.utf8)
            try #require(old.count == new.count, "the replacement keeps the header's length")
            let at = try #require((0 ... mask.count - old.count).first { Array(mask[$0 ..< $0 + old.count]) == old })
            mask.replaceSubrange(at ..< at + old.count, with: new)
        }
        try scratch.write(mask, to: "m/heads-split.safetensors")
        if withHeads {
            try scratch.write(try Fixtures.bytes("instances/heads-split-instances.safetensors"), to: "m/heads-split-instances.safetensors")
        }
        return (scratch, ModelName(file: scratch.url.appendingPathComponent("m/heads-split.safetensors")))
    }

    @Test func theSplitHeadsGiveTheInlineCues() throws {
        let (scratch, model) = try splitCopy()
        defer { scratch.remove() }
        let split = try SubjectLifter(model: model, quality: .balanced, threads: 2)
        let inline = try SubjectLifter(model: ModelName(file: Fixtures.url("instances/heads.safetensors")), quality: .balanced, threads: 2)
        #expect(split.hasInstanceCues)
        #expect(try split.probabilityMap(for: Self.photo) == inline.probabilityMap(for: Self.photo))
        let cues = try #require(try split.instanceCues(for: Self.photo))
        #expect(cues == (try inline.instanceCues(for: Self.photo)))
    }

    @Test func aMissingHeadsFileFailsOnlyWhenCuesAreAskedFor() throws {
        let (scratch, model) = try splitCopy(withHeads: false)
        defer { scratch.remove() }
        var lifter = try SubjectLifter(model: model, quality: .fast, threads: 2)
        #expect(lifter.hasInstanceCues)
        _ = try lifter.analyze(Self.photo)  // the mask alone never looks for the heads
        lifter.analysisOptions.instances = .model
        #expect { try lifter.analyze(Self.photo) } throws: { error in
            guard case LiftError.modelLoadFailed(_, let path, _) = error else { return false }
            return path.hasSuffix("m/heads-split-instances.safetensors")
        }
    }

    @Test func aHeadsFileOutsideTheModelsDirectoryIsRefused() throws {
        let (scratch, model) = try splitCopy(naming: "../../../../../../z/x.safetensors")
        defer { scratch.remove() }
        #expect { try SubjectLifter(model: model, quality: .fast, threads: 2) } throws: { error in
            guard case LiftError.unsupportedInputSpec(_, let reason) = error else { return false }
            return reason.contains("must name a file beside the model")
        }
    }

    @Test func aBrokenHeadsFileFailsWhenCuesAreAskedFor() throws {
        let (scratch, model) = try splitCopy()
        defer { scratch.remove() }
        try scratch.write(Array("not a model".utf8), to: "m/heads-split-instances.safetensors")
        var lifter = try SubjectLifter(model: model, quality: .fast, threads: 2)
        _ = try lifter.analyze(Self.photo)  // the mask alone never reads the heads
        lifter.analysisOptions.instances = .model
        #expect { try lifter.analyze(Self.photo) } throws: { error in
            guard case LiftError.modelLoadFailed(_, let path, _) = error else { return false }
            return path.hasSuffix("heads-split-instances.safetensors")
        }
    }
}
