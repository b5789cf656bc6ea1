import Foundation
import LiftModel
import LiftTensor
import Testing
import TestSupport

/// A graph that takes an input of 21 channels apart with `slice` and puts two of the parts back
/// in another order: `out` = concat(x[..., 5 ..< 21], x[..., 0 ..< 5]) (the widths cover the
/// vector body and the scalar tail of the copy).
private func sliceGraph() throws -> [UInt8] {
    func slice(_ name: String, _ start: Int, _ end: Int) -> [String: Any] {
        ["op": "slice", "name": name, "inputs": ["x"], "outputs": [name], "attrs": ["start": start, "end": end, "axis": 3]]
    }
    let graph: [String: Any] = ["format": "lift.graph/1", "inputs": [["name": "x", "shape": [1, -1, -1, 21]]],
                                "outputs": ["out", "tail"],
                                "nodes": [slice("tail", 5, 21), slice("head", 0, 5),
                                          ["op": "concat", "name": "out", "inputs": ["tail", "head"], "outputs": ["out"]]]]
    let document = try JSONSerialization.data(withJSONObject: graph, options: [.sortedKeys])
    return try SafeTensorsBuilder.file(header: ["__metadata__": ["lift.graph": String(decoding: document, as: UTF8.self)]], data: [])
}

/// `slice` copies exactly the channels it names, on 1 and 2 threads, at any size.
@Test(arguments: [1, 2])
func sliceCopiesItsChannels(threads: Int) throws {
    let model = try Model(bytes: try sliceGraph())
    for (h, w) in [(1, 1), (7, 13), (40, 33)] {
        let c = 21
        let values = (0 ..< h * w * c).map { Float($0 % 997) * 0.5 - 100 }
        let input = Tensor(shape: TensorShape(n: 1, h: h, w: w, c: c), values: values)
        let outputs = try model.runAll(input, threads: threads)
        #expect(outputs[1].shape == TensorShape(n: 1, h: h, w: w, c: 16))
        var expected: [Float] = [], tail: [Float] = []
        for pixel in 0 ..< h * w {
            let row = values[pixel * c ..< (pixel + 1) * c]
            expected += row.dropFirst(5) + row.prefix(5)
            tail += row.dropFirst(5)
        }
        #expect(outputs[0].toArray() == expected)
        #expect(outputs[1].toArray() == tail)
    }
}
