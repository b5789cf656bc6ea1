import LiftModel
import Testing

/// `SafeTensorsWriter` against the reader: values, order, padding, and the errors.
@Suite struct SafeTensorsWriterTests {
    private let tensors = [
        SafeTensorsWriter.Tensor(name: "b", shape: [2, 3], values: [1, -2, 3.5, 0, 1e-3, -65504]),
        SafeTensorsWriter.Tensor(name: "a", shape: [1], values: [0.1]),
    ]

    @Test(arguments: [SafeTensorsWriter.Precision.f32, .f16])
    func readsBackWhatItWrote(precision: SafeTensorsWriter.Precision) throws {
        let bytes = try SafeTensorsWriter.bytes(tensors: tensors, metadata: ["k": "v \"quoted\"\n"], precision: precision)
        let headerLength = bytes[0 ..< 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(headerLength % 8 == 0)
        let file = try SafeTensors(bytes: bytes)
        #expect(file.metadata == ["k": "v \"quoted\"\n"])
        #expect(file.tensors["b"]?.shape == [2, 3] && file.tensors["a"]?.byteRange.lowerBound == 0)  // name order
        for tensor in tensors {
            let values = try file.floats(tensor.name)
            let tolerance: Float = precision == .f32 ? 0 : 1e-3
            #expect(zip(values, tensor.values).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($1)) }, "\(tensor.name)")
        }
        #expect(try SafeTensorsWriter.bytes(tensors: tensors.reversed(), metadata: ["k": "v \"quoted\"\n"], precision: precision) == bytes)
    }

    @Test func refusesWhatItCannotStore() {
        #expect(throws: SafeTensorsWriter.WriteError.notRepresentable(tensor: "x", value: 70000, precision: "F16")) {
            try SafeTensorsWriter.bytes(tensors: [.init(name: "x", shape: [1], values: [70000])], metadata: [:], precision: .f16)
        }
        #expect(throws: SafeTensorsWriter.WriteError.self) {
            try SafeTensorsWriter.bytes(tensors: [.init(name: "x", shape: [1], values: [.nan])], metadata: [:], precision: .f32)
        }
        #expect(throws: SafeTensorsWriter.WriteError.duplicateName("x")) {
            try SafeTensorsWriter.bytes(tensors: [.init(name: "x", shape: [1], values: [1]), .init(name: "x", shape: [1], values: [2])],
                                        metadata: [:], precision: .f32)
        }
    }
}
