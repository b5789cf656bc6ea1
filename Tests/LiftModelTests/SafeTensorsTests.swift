import Foundation
import LiftModel
import Testing
import TestSupport

@Test func readsTheTinyFixtureHeaderAndTensors() throws {
    let file = try SafeTensors(contentsOf: Fixtures.url("graphs/tiny.safetensors"))
    #expect(file.metadata["lift.graph"]?.hasPrefix("{") == true)
    #expect(file.metadata["lift.provenance"]?.contains("make_tiny_graph.py") == true)
    let weight = try #require(file.tensors["conv1.weight"])
    #expect(weight.dtype == .f32)
    #expect(weight.shape == [5, 3, 3, 3])
    #expect(try file.floats("conv1.weight").count == 135)
    #expect(file.names == file.tensors.keys.sorted())
}

@Test func convertsF16AndBF16ToFloat32() throws {
    // 1.0, -2.0, 0.5 in F16 (0x3C00, 0xC000, 0x3800) and BF16 (0x3F80, 0xC000, 0x3F00).
    let data: [UInt8] = [0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38, 0x80, 0x3F, 0x00, 0xC0, 0x00, 0x3F]
    let bytes = try SafeTensorsBuilder.file(header: [
        "a": SafeTensorsBuilder.entry("F16", shape: [3], begin: 0, end: 6),
        "b": SafeTensorsBuilder.entry("BF16", shape: [3], begin: 6, end: 12),
    ], data: data)
    let file = try SafeTensors(bytes: bytes)
    #expect(try file.floats("a") == [1, -2, 0.5])
    #expect(try file.floats("b") == [1, -2, 0.5])
    #expect(file.metadata.isEmpty)
}

@Test func theF16FixtureMatchesTheF32OneWithinHalfPrecision() throws {
    let f32 = try SafeTensors(contentsOf: Fixtures.url("graphs/tiny.safetensors"))
    let f16 = try SafeTensors(contentsOf: Fixtures.url("graphs/tiny_f16.safetensors"))
    #expect(f32.names == f16.names)
    for name in f32.names {
        #expect(f16.tensors[name]?.dtype == .f16)
        for (a, b) in zip(try f32.floats(name), try f16.floats(name)) {
            #expect(abs(a - b) <= abs(a) * 1e-3 + 1e-6, "\(name)")
        }
    }
}

/// One malformed file and the error it must give.
struct BrokenFile: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: @Sendable () throws -> [UInt8]
    let expected: SafeTensorsError
    var testDescription: String { name }
}

private let twoFloats = SafeTensorsBuilder.f32([1, 2])

let brokenFiles: [BrokenFile] = [
    BrokenFile(name: "shorter than the length field", bytes: { [1, 0, 0] }, expected: .fileTooSmall(byteCount: 3)),
    BrokenFile(name: "header length over the limit", bytes: { SafeTensorsBuilder.raw(headerText: [], data: [], declaredLength: 1 << 40) },
               expected: .headerTooLarge(declared: 1 << 40, limit: WeightLimits.default.maxHeaderBytes)),
    BrokenFile(name: "header past the end of the file", bytes: {
        SafeTensorsBuilder.raw(headerText: Array("{}".utf8), data: [], declaredLength: 10)
    }, expected: .headerPastEndOfFile(declared: 10, fileSize: 10)),
    BrokenFile(name: "data truncated", bytes: {
        try SafeTensorsBuilder.file(header: ["w": SafeTensorsBuilder.entry(shape: [2], begin: 0, end: 8)], data: Array(twoFloats.prefix(5)))
    }, expected: .offsetsOutOfBounds(tensor: "w", begin: 0, end: 8, dataSize: 5)),
    BrokenFile(name: "reversed offsets", bytes: {
        try SafeTensorsBuilder.file(header: ["w": SafeTensorsBuilder.entry(shape: [2], begin: 8, end: 0)], data: twoFloats)
    }, expected: .offsetsOutOfBounds(tensor: "w", begin: 8, end: 0, dataSize: 8)),
    BrokenFile(name: "shape does not match the byte count", bytes: {
        try SafeTensorsBuilder.file(header: ["w": SafeTensorsBuilder.entry(shape: [3], begin: 0, end: 8)], data: twoFloats)
    }, expected: .byteCountMismatch(tensor: "w", shape: [3], dtype: "F32", expected: 12, actual: 8)),
    BrokenFile(name: "unknown dtype", bytes: {
        try SafeTensorsBuilder.file(header: ["w": SafeTensorsBuilder.entry("F24", shape: [2], begin: 0, end: 8)], data: twoFloats)
    }, expected: .unknownDType(tensor: "w", dtype: "F24")),
    BrokenFile(name: "negative dimension", bytes: {
        try SafeTensorsBuilder.file(header: ["w": SafeTensorsBuilder.entry(shape: [-2], begin: 0, end: 8)], data: twoFloats)
    }, expected: .invalidShape(tensor: "w", shape: [-2], reason: "a dimension is negative")),
    BrokenFile(name: "element count overflows", bytes: {
        try SafeTensorsBuilder.file(header: ["w": SafeTensorsBuilder.entry(shape: [1 << 40, 1 << 40], begin: 0, end: 8)], data: twoFloats)
    }, expected: .invalidShape(tensor: "w", shape: [1 << 40, 1 << 40], reason: "the element count overflows")),
    BrokenFile(name: "overlapping tensors", bytes: {
        try SafeTensorsBuilder.file(header: ["a": SafeTensorsBuilder.entry(shape: [2], begin: 0, end: 8),
                                             "b": SafeTensorsBuilder.entry(shape: [1], begin: 4, end: 8)], data: twoFloats)
    }, expected: .notContiguous(tensor: "b", begin: 4, expectedBegin: 8)),
    BrokenFile(name: "bytes no tensor claims", bytes: {
        try SafeTensorsBuilder.file(header: ["w": SafeTensorsBuilder.entry(shape: [1], begin: 0, end: 4)], data: twoFloats)
    }, expected: .trailingBytes(count: 4)),
    BrokenFile(name: "header is not JSON", bytes: { SafeTensorsBuilder.raw(headerText: Array("{oops".utf8), data: []) },
               expected: .headerNotJSON(reason: "")),
    BrokenFile(name: "metadata value not a string", bytes: {
        try SafeTensorsBuilder.file(header: ["__metadata__": ["lift.graph": 3]], data: [])
    }, expected: .invalidMetadata(key: "lift.graph", reason: "the value is not a string")),
    BrokenFile(name: "entry without offsets", bytes: {
        try SafeTensorsBuilder.file(header: ["w": ["dtype": "F32", "shape": [2]]], data: twoFloats)
    }, expected: .invalidEntry(tensor: "w", reason: "\"data_offsets\" is missing or not two integers")),
]

@Test(arguments: brokenFiles)
func malformedFilesThrowTheirTypedError(_ broken: BrokenFile) throws {
    let bytes = try broken.bytes()
    #expect {
        try SafeTensors(bytes: bytes)
    } throws: { error in
        guard let error = error as? SafeTensorsError, !error.description.isEmpty else { return false }
        // The JSON parser's message is Foundation's; only the case is asserted there.
        if case .headerNotJSON = broken.expected, case .headerNotJSON = error { return true }
        return error == broken.expected
    }
}

@Test func everyTruncationOfTheTinyFixtureThrowsATypedError() throws {
    let bytes = try Fixtures.bytes("graphs/tiny.safetensors")
    for length in stride(from: 0, to: bytes.count, by: 97) {
        #expect(throws: SafeTensorsError.self) { try SafeTensors(bytes: Array(bytes.prefix(length))) }
    }
}

@Test func limitsAreCheckedBeforeReading() throws {
    let bytes = try SafeTensorsBuilder.file(header: ["a": SafeTensorsBuilder.entry(shape: [1], begin: 0, end: 4),
                                                     "b": SafeTensorsBuilder.entry(shape: [1], begin: 4, end: 8)], data: twoFloats)
    #expect(throws: SafeTensorsError.tooManyTensors(count: 2, limit: 1)) {
        try SafeTensors(bytes: bytes, limits: WeightLimits(maxTensors: 1))
    }
    #expect(throws: SafeTensorsError.fileTooLarge(byteCount: bytes.count, limit: 16)) {
        try SafeTensors(bytes: bytes, limits: WeightLimits(maxFileBytes: 16))
    }
    #expect(throws: SafeTensorsError.invalidShape(tensor: "a", shape: [1], reason: "rank 1 exceeds the limit of 0")) {
        try SafeTensors(bytes: bytes, limits: WeightLimits(maxRank: 0))
    }
}

@Test func integerTensorsHaveValidHeadersButDoNotConvertToFloats() throws {
    let bytes = try SafeTensorsBuilder.file(header: ["n": SafeTensorsBuilder.entry("I32", shape: [2], begin: 0, end: 8)], data: twoFloats)
    let file = try SafeTensors(bytes: bytes)
    #expect(throws: SafeTensorsError.unsupportedDType(tensor: "n", dtype: "I32")) { try file.floats("n") }
    #expect(throws: SafeTensorsError.missingTensor(name: "m")) { try file.floats("m") }
}

@Test func filesThatCannotBeReadNameThePathAndTheReason() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let missing = scratch.url.appendingPathComponent("missing.safetensors")
    #expect(throws: SafeTensorsError.unreadable(path: missing.path, reason: "No such file or directory")) {
        try SafeTensors(contentsOf: missing)
    }
    #expect(throws: SafeTensorsError.unreadable(path: scratch.url.path, reason: "it is a directory")) {
        try SafeTensors(contentsOf: scratch.url)
    }
    let bytes = try Fixtures.bytes("graphs/tiny.safetensors")
    try scratch.write(bytes, to: "tiny.safetensors")
    #expect(throws: SafeTensorsError.fileTooLarge(byteCount: bytes.count, limit: 100)) {
        try SafeTensors(contentsOf: scratch.url.appendingPathComponent("tiny.safetensors"), limits: WeightLimits(maxFileBytes: 100))
    }
}
