import Foundation
import LiftImage
import Testing
import TestSupport

/// Temporary files: their names, and which ones a later run may remove.
@Suite struct AtomicFileTests {
    @Test func temporaryNamesAreRecognisedExactly() {
        for name in [".a.png.lift.tmp-1a2b3c4d", ".x.lift.tmp-ffffffff", ".photo.cutout.png.tmp-0", ".report.json.tmp-9"] {
            #expect(AtomicFile.isTemporaryName(name), "\(name)")
        }
        // Other programs' temporary files (Go's os.CreateTemp writes `.x.tmp-12345678`) are not Lift's.
        for name in ["a.png.tmp-1a2b", ".tmp-12", ".a.png.tmp-", ".a.png.tmp-123456789", ".a.png.tmp-XYZ", ".a.png.tmp-ABCD", ".a.png",
                     ".x.tmp-12345678", ".data.bin.tmp-1"] {
            #expect(!AtomicFile.isTemporaryName(name), "\(name)")
        }
    }

    @Test func onlyTemporaryFilesNoLiveWriterHoldsAreRemoved() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write([1, 2, 3], to: ".left.png.tmp-abc")
        try scratch.write([1, 2, 3], to: ".held.png.tmp-def")
        try scratch.write([], to: ".new.png.tmp-123")  // fresh: a writer may be about to lock it
        try scratch.write([1, 2, 3], to: "kept.png")
        #expect(mkfifo(scratch.path(".pipe.png.tmp-9"), 0o644) == 0)
        let held = open(scratch.path(".held.png.tmp-def"), O_RDONLY)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        // Left a minute ago: old enough to be stale unless locked.
        for name in [".left.png.tmp-abc", ".held.png.tmp-def"] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: scratch.path(name))
        }
        #expect(AtomicFile.removeStaleTemporaryFiles(in: scratch.url.path) == [scratch.path(".left.png.tmp-abc")])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
            == [".held.png.tmp-def", ".new.png.tmp-123", ".pipe.png.tmp-9", "kept.png"])
        #expect(AtomicFile.removeStaleTemporaryFiles(in: scratch.path("missing")) == [])
    }

    @Test func aWriteLeavesNoTemporaryFileAndRefusesToReplaceWhenAsked() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try AtomicFile.write([1], to: scratch.path("a.bin"), overwrite: false)
        #expect(throws: AtomicFile.WriteError.self) { try AtomicFile.write([2], to: scratch.path("a.bin"), overwrite: false) }
        try AtomicFile.write([3], to: scratch.path("a.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["a.bin"])
        #expect(try Fixtures.bytes(scratch.path("a.bin"), absolute: true) == [3])
    }
}
