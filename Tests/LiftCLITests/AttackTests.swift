import Foundation
import Lift
import Testing
import TestSupport

/// The command-line attacks of an adversarial trial, replayed on the built `lift`: output names that
/// crashed path handling, lists and streams that misled or exhausted it, names that reached the
/// terminal raw, and files whose decoding cost far more than their size.
@Suite(.enabled(if: SamplePhotos.weightsAvailable, "\(SamplePhotos.noWeights)"))
struct AttackTests {
    @Test(arguments: [["a.png", "-o", "m"], ["-om", "a.png"], ["a.png", "-o", "n/"], ["a.png", "-o", "./x"]])
    func shortAndSlashEndedOutputNamesAreWritten(arguments: [String]) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        let run = try LiftBinary.run(arguments + ["-m", "person"], in: scratch.url, timeout: 120)
        #expect(run.status == 0, "\(arguments): \(run.standardError)")
        let written = arguments.contains("n/") ? "n/a.cutout.png" : arguments.contains("./x") ? "x" : "m"
        #expect(scratch.exists(written), "\(arguments): \(run.standardError)")
    }

    @Test func aNULSeparatedListReadByLinesIsRefusedNamingTheLine() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try SamplePhotos.astronaut(), to: "A.png")
        try scratch.write(try SamplePhotos.astronaut(), to: "d/B.png")
        try scratch.write(Array("ok.png\nA.png\0d/B.png\0".utf8), to: "list")
        let run = try LiftBinary.run(["--files-from", "list", "-m", "person"], in: scratch.url, timeout: 60)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("cannot read the --files-from list list: line 2 holds a NUL byte"), "\(run.standardError)")
        #expect(run.standardError.contains("needs --null"))
        #expect(!scratch.exists("d/B.cutout.png") && !scratch.exists("A.cutout.png"))
    }

    @Test func fileNamesReachStandardErrorEscaped() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let hostile = "a\u{1B}]0;owned\u{07}\u{1B}[2J\nlift: forged.png -> x (1 subject)\u{9B}31m.png"
        try scratch.write(try SamplePhotos.astronaut(), to: hostile)
        for arguments in [[hostile, "-o", "out.png"], ["missing\u{1B}[31m.png"], ["info", "gone\n\u{1B}[0m.png"], ["convert", hostile, "c\u{1B}.jpg"]] {
            let run = try LiftBinary.run(arguments + (arguments[0] == "info" || arguments[0] == "convert" ? [] : ["-m", "person"]),
                                         in: scratch.url, timeout: 60)
            #expect(!run.standardError.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }, "\(arguments)")
            #expect(run.standardError.contains("\\u001b"), "\(arguments): \(run.standardError)")
            #expect(!run.standardError.contains("\nlift: forged"), "\(arguments): \(run.standardError)")
        }
    }

    @Test func standardInputPastItsCapIsRefusedWithinAnAddressSpaceCap() throws {
        // 1 GiB and 100 bytes that start like a PNG, under a 1.5 GB address-space cap: refused once the
        // cap is passed, having held no more than the bytes read (it used to grow a second buffer and abort).
        let script = "ulimit -v 1500000; (printf '\\211PNG\\r\\n\\032\\n'; head -c 1073741900 /dev/zero) | \"$0\" -"
        let run = try LiftBinary.run(["-c", script, LiftBinary.url.path], standardOutputPath: "/dev/null", timeout: 120,
                                     executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardError.contains("<stdin>: larger than 1024 MiB"), "\(run.standardError)")
    }

    @Test func aModelWhoseOutputCannotBeAMaskIsRefusedAtLoadAndImport() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(try Fixtures.bytes("onnx/tiny.onnx"), to: "three.onnx")
        try scratch.write(try SamplePhotos.astronaut(), to: "a.png")
        let imported = try LiftBinary.run(["import", "three.onnx", "-o", "three.safetensors"], in: scratch.url, timeout: 60)
        #expect(imported.status == 1 && imported.standardError.contains("has 8 channels"), "\(imported.standardError)")
        #expect(!scratch.exists("three.safetensors"))
        let run = try LiftBinary.run(["a.png", "b.png", "--model", "three.onnx", "-o", "out"], in: scratch.url, timeout: 60)
        #expect(run.status == 1 && run.standardError.contains("has 8 channels"), "\(run.standardError)")
        #expect(!run.standardError.contains("a.png"), "refused once at load, not once per photo: \(run.standardError)")
    }
}
