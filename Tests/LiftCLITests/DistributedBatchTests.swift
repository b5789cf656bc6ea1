import Foundation
import Lift
import LiftCLI
import Testing
import TestSupport

/// What a distributed driver relies on: `--files-from`, `--shard K/N` and `--json-lines`, end to end.
@Suite(.enabled(if: SamplePhotos.weightsAvailable, "\(SamplePhotos.noWeights)"))
struct DistributedBatchTests {
    /// `photos/p0.png … p{count-1}.png` and the JSON lines of a run.
    private func photos(_ count: Int) throws -> ScratchDirectory {
        let scratch = try ScratchDirectory()
        let photo = try SamplePhotos.astronaut()
        for index in 0 ..< count { try scratch.write(photo, to: "photos/p\(index).png") }
        return scratch
    }

    private func lines(_ result: LiftBinary.Result) throws -> [[String: Any]] {
        try result.outputText.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func shardsOfAListWriteEveryImageOnceWhateverThePathsSpelling() throws {
        let scratch = try photos(9)
        defer { scratch.remove() }
        // The same files spelled three ways across the list: each shard must agree on all of them.
        let spellings = (0 ..< 9).map { index in ["photos/p\(index).png", "./photos/p\(index).png", scratch.path("photos/p\(index).png")][index % 3] }
        try scratch.write(Array((spellings.joined(separator: "\n") + "\n").utf8), to: "list.txt")
        var seen: [String] = []
        for k in 1 ... 3 {
            let run = try LiftBinary.run(["--files-from", "list.txt", "--shard", "\(k)/3", "-o", "out", "-m", "person", "--json-lines", "-q"],
                                         in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            seen += try lines(run).map { try #require($0["output"] as? String) }
            // Rerunning a shard (a retry) picks the same files and finds them done.
            let again = try LiftBinary.run(["--files-from", "list.txt", "--shard", "\(k)/3", "-o", "out", "-m", "person",
                                            "--json-lines", "--skip-existing", "-q"], in: scratch.url)
            #expect(try lines(again).allSatisfy { $0["status"] as? String == "skipped" })
            #expect(try lines(again).count == lines(run).count)
        }
        #expect(seen.sorted() == (0 ..< 9).map { "out/p\($0).cutout.png" }.sorted())
        // Another spelling of one file on the command line lands in the same shard as in the list.
        let one = scratch.path("photos/../photos/p4.png")
        let owners = try (1 ... 3).filter { k in
            try LiftBinary.run([one, "--shard", "\(k)/3", "-o", "single", "-m", "person", "-q", "--json-lines"], in: scratch.url).outputText != ""
        }
        #expect(owners.count == 1)
    }

    @Test func aListWithMissingFilesReportsEachByItsLineAndGoesOn() throws {
        let scratch = try photos(2)
        defer { scratch.remove() }
        try scratch.write(Array("photos/p0.png\r\nphotos/gone.png\n\nphotos/p1.png\nphotos/also-gone.png".utf8), to: "list.txt")
        let run = try LiftBinary.run(["--files-from", "list.txt", "-o", "out", "-m", "person", "--json-lines"], in: scratch.url)
        #expect(run.status == 1)
        #expect(run.standardError.contains("lift: photos/gone.png: no such file or directory (line 2 of list.txt)"), "\(run.standardError)")
        #expect(run.standardError.contains("lift: photos/also-gone.png: no such file or directory (line 5 of list.txt)"))
        let reports = try lines(run)
        #expect(reports.map { $0["status"] as? String } == ["ok", "failed", "ok", "failed"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted() == ["p0.cutout.png", "p1.cutout.png"])
        // NUL-separated, from standard input.
        let null = try LiftBinary.run(["--files-from", "-", "--null", "-o", "out0", "-m", "person", "-q"], in: scratch.url,
                                      input: Array("photos/p0.png\0photos/p1.png\0".utf8))
        #expect(null.status == 0, "\(null.standardError)")
        #expect(try LiftBinary.run(["--files-from", "absent.txt"], in: scratch.url).standardError.contains(
            "cannot read the --files-from list absent.txt: No such file or directory"))
        #expect(try LiftBinary.run(["photos/p0.png", "--null"], in: scratch.url).status == 2)
    }

    @Test func jsonLinesAreOneObjectPerImageWithTheReportsFields() throws {
        let scratch = try photos(1)
        defer { scratch.remove() }
        try scratch.write([1, 2, 3], to: "photos/broken.png")
        let run = try LiftBinary.run(["photos", "-o", "out", "-m", "person", "--json-lines", "--mask", "masks"], in: scratch.url)
        #expect(run.status == 1)
        let reports = try lines(run)
        #expect(reports.count == 2)
        let failed = try #require(reports.first { $0["status"] as? String == "failed" })
        #expect(failed["input"] as? String == "photos/broken.png" && (failed["error"] as? String)?.isEmpty == false)
        let ok = try #require(reports.first { $0["status"] as? String == "ok" })
        #expect(ok["input"] as? String == "photos/p0.png" && ok["output"] as? String == "out/p0.cutout.png")
        #expect(ok["mask"] as? String == "masks/p0.mask.png")
        let timings = try #require(ok["timings"] as? [String: Double])
        #expect(Set(timings.keys).isSuperset(of: ["decode", "inference", "mask", "composite", "encode", "write"]))
        #expect(ok["width"] as? Int == 256 && ok["instances"] is [[String: Any]])
        // Standard output carries either the lines or an image.
        #expect(try LiftBinary.run(["photos/p0.png", "-o", "-", "--json-lines"], in: scratch.url).status == 2)
        #expect(try LiftBinary.run(["-", "--shard", "1/2"], in: scratch.url).status == 2)
    }

    @Test func everyShardPlansTheWholeBatchSoLayoutsAndCollisionsAgree() throws {
        let scratch = try photos(12)
        defer { scratch.remove() }
        // Two photos in different shards of 2; alone in its shard, each must still go into the directory.
        let real = URL(fileURLWithPath: scratch.path("photos")).resolvingSymlinksInPath().path
        let part = { (index: Int) in Shard.part(of: real + "/p\(index).png", count: 2) }
        let first = try #require((0 ..< 12).first { part($0) == 1 }), second = try #require((0 ..< 12).first { part($0) == 2 })
        try scratch.write(Array("photos/p\(first).png\nphotos/p\(second).png\n".utf8), to: "two.txt")
        var log = ""
        for k in 1 ... 2 {
            let run = try LiftBinary.run(["--files-from", "two.txt", "--shard", "\(k)/2", "-o", "out", "-m", "person", "--skip-existing"],
                                         in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            log += run.standardError
        }
        let written = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()) ?? []
        #expect(written == ["p\(first).cutout.png", "p\(second).cutout.png"].sorted(), "\(log)")

        // Two inputs that would write one output: the later one fails in whichever shard has it.
        try scratch.write(try SamplePhotos.astronaut(), to: "a/p\(first).png")
        try scratch.write(Array("photos/p\(first).png\na/p\(first).png\n".utf8), to: "clash.txt")
        var statuses: [Int32] = []
        var errors = ""
        for k in 1 ... 2 {
            let run = try LiftBinary.run(["--files-from", "clash.txt", "--shard", "\(k)/2", "-o", "clash/", "-m", "person", "-q", "--skip-existing"],
                                         in: scratch.url)
            statuses.append(run.status)
            errors += run.standardError
        }
        #expect(statuses.contains(1) && errors.contains("would also be written for photos/p\(first).png"), "\(errors)")
    }

    @Test func listsFromPipesAndListEntriesNamedDash() throws {
        let scratch = try photos(2)
        defer { scratch.remove() }
        let piped = try LiftBinary.run(["-c", "exec \"$0\" --files-from <(printf 'photos/p0.png\\nphotos/p1.png\\n') -o out -m person -q",
                                        LiftBinary.url.path], in: scratch.url, executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(scratch.exists("out/p0.cutout.png") && scratch.exists("out/p1.cutout.png"))
        try scratch.write(Array("-\n".utf8), to: "dash.txt")
        let dash = try LiftBinary.run(["--files-from", "dash.txt", "-o", "d", "-m", "person"], in: scratch.url,
                                      input: try SamplePhotos.astronaut())
        #expect(dash.status == 1 && dash.standardError.contains("./-: no such file or directory (line 1 of dash.txt)"), "\(dash.standardError)")
        // A photo on standard input would be cut out to standard output, which the lines hold.
        #expect(try LiftBinary.run(["-", "--json-lines"], in: scratch.url, input: try SamplePhotos.astronaut()).status == 2)
    }
}
