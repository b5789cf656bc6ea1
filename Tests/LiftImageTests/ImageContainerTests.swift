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
    #expect(throws: AtomicFile.WriteError.self) { try AtomicFile.write([9], to: path, overwrite: false) }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(leftovers == ["out.bin"])
    #expect(throws: AtomicFile.WriteError.self) { try AtomicFile.write([9], to: "/nonexistent-dir/x.png") }
}
