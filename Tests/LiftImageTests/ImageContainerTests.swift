import LiftImage
import Foundation
import Testing
import TestSupport

@Test func rgbaFillSetsEverySample() {
    let image = RGBAImage(width: 3, height: 2, fill: (1, 2, 3, 4))
    #expect(image.pixels.count == 24)
    #expect(image.pixels[20 ..< 24] == [1, 2, 3, 4])
    #expect(!image.isOpaque)
}

@Test func floatMapQuantisesWithRounding() {
    let map = FloatMap(width: 4, height: 1, values: [-1, 0.5, 0.999, 2])
    #expect(map.grayImage().pixels == [0, 128, 255, 255])
}

@Test func atomicWriteReplacesAndRefusesWhenAsked() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let dir = scratch.url
    let path = dir.appendingPathComponent("out.bin").path
    try AtomicFile.write([1, 2, 3], to: path)
    try AtomicFile.write([4, 5], to: path)
    #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == [4, 5])
    // Not replacing is decided by link(2) after the bytes are written: the file stays as it was.
    let refusal = #expect(throws: AtomicFile.WriteError.self) { try AtomicFile.write([9], to: path, overwrite: false) }
    #expect(refusal?.reason == "file exists")
    #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == [4, 5])
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(leftovers == ["out.bin"])
    #expect(throws: AtomicFile.WriteError.self) { try AtomicFile.write([9], to: "/nonexistent-dir/x.png") }
    // A new file is written without replacing; a replaced one keeps its mode; a new one follows the umask.
    let fresh = dir.appendingPathComponent("fresh.bin").path
    try AtomicFile.write([7], to: fresh, overwrite: false)
    #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: fresh))) == [7])
    #expect(chmod(path, 0o600) == 0)
    try AtomicFile.write([6], to: path)
    var info = stat()
    #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    // The umask as Linux reports it (reading it through umask(2) would change it for parallel tests).
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let umaskLine = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
    let mask = try #require(mode_t(umaskLine.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8))
    #expect(stat(fresh, &info) == 0 && info.st_mode & 0o777 == 0o666 & ~mask)
    // A name near NAME_MAX still gets a temporary file that fits.
    let long = dir.appendingPathComponent(String(repeating: "n", count: 250) + ".png").path
    try AtomicFile.write([5], to: long)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [(long as NSString).lastPathComponent, "fresh.bin", "out.bin"].sorted())
}
