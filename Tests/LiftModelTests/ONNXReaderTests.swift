import Foundation
import LiftModel
import Testing
import TestSupport

/// The ONNX reader against what the `onnx` package reads from the same file
/// (`Tests/Fixtures/onnx/tiny.json`, written by `Tools/fixtures/make_onnx_fixtures.py`), and on
/// broken files.
@Suite struct ONNXReaderTests {
    private let expected: [String: Any] = {
        let data = (try? Data(contentsOf: Fixtures.url("onnx/tiny.json"))) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
    }()

    @Test func readsTheModelAsTheONNXPackageDoes() throws {
        let model = try ONNXModel(contentsOf: Fixtures.url("onnx/tiny.onnx"))
        #expect(model.irVersion == expected["ir_version"] as? Int)
        #expect(model.opsets == ["": 13])
        #expect(model.producer == expected["producer"] as? String)
        let graph = model.graph
        let input = try #require(graph.inputs.first)
        #expect(input.name == "image" && input.elementType == 1 && input.shape == [.symbol("batch"), .value(3), .value(8), .value(8)])
        #expect(graph.outputs.map(\.name) == ["out"])

        let nodes = try #require(expected["nodes"] as? [[String: Any]])
        #expect(graph.nodes.map(\.name) == nodes.map { $0["name"] as? String ?? "" })
        for (node, want) in zip(graph.nodes, nodes) {
            #expect(node.opType == want["op"] as? String && node.inputs == want["inputs"] as? [String] && node.outputs == want["outputs"] as? [String])
            let attributes = try #require(want["attributes"] as? [String: [String: Any]])
            #expect(Set(node.attributes.map(\.name)) == Set(attributes.keys), "\(node.name)")
            for (name, value) in attributes {
                let got = try #require(node.attribute(name))
                switch got {
                case .int(let number): #expect(value["int"] as? Int == Int(number), "\(node.name).\(name)")
                case .float(let number): #expect((value["float"] as? Double).map(Float.init) == number, "\(node.name).\(name)")
                case .ints(let numbers): #expect(value["ints"] as? [Int] == numbers.map(Int.init), "\(node.name).\(name)")
                case .string(let bytes): #expect(value["string"] as? String == String(decoding: bytes, as: UTF8.self))
                case .tensor(let tensor):
                    #expect(tensor.name == value["tensor"] as? String)
                    #expect(tensor.floats?.map(Double.init) == value["values"] as? [Double])
                default: Issue.record("\(node.name).\(name): unexpected \(got)")
                }
            }
        }

        let initializers = try #require(expected["initializers"] as? [[String: Any]])
        #expect(graph.initializers.map(\.name) == initializers.map { $0["name"] as? String ?? "" })
        for (tensor, want) in zip(graph.initializers, initializers) {
            #expect(tensor.dataType == want["type"] as? Int && tensor.dims == want["dims"] as? [Int], "\(tensor.name)")
            let values = try #require(want["values"] as? [Double])
            // float16 and double are compared as Float32, the precision Lift computes in.
            #expect(tensor.floats?.map(Double.init) == values.map { Double(Float($0)) }, "\(tensor.name): raw, float, int32, int64, double data")
        }
    }

    @Test func everyTruncationAndManyCorruptionsFailWithATypedError() throws {
        let bytes = try Fixtures.bytes("onnx/tiny.onnx")
        for length in 0 ..< bytes.count {
            #expect(throws: ONNXError.self, "cut at \(length)") { _ = try ONNXModel(bytes: Array(bytes[..<length])) }
        }
        var generator = SeededGenerator(seed: 7)
        for _ in 0 ..< 3000 {
            var mutated = bytes
            for _ in 0 ..< Int.random(in: 1 ... 4, using: &generator) {
                mutated[Int.random(in: 0 ..< mutated.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
            }
            _ = try? ONNXModel(bytes: mutated)  // any outcome but a crash, a hang or a huge allocation
        }
    }

    @Test func errorsSayWhatAndWhere() {
        // A graph field (7) claiming 200 bytes of a 5-byte file.
        #expect(throws: ONNXError.malformed(offset: 2, reason: "field 7 claims 200 bytes, but 1 remain")) {
            try ONNXModel(bytes: [0x08, 0x06, 0x3A, 0xC8, 0x01, 0x00])
        }
        #expect(throws: ONNXError.missingGraph) { try ONNXModel(bytes: [0x08, 0x06]) }
        #expect(throws: ONNXError.missingOperatorSet) { try ONNXModel(bytes: [0x08, 0x06, 0x3A, 0x00]) }
        // A tensor of 3 floats holding 8 bytes: dims 3, type 1, name "w", raw_data of 8 bytes.
        let initializer: [UInt8] = [0x08, 0x03, 0x10, 0x01, 0x42, 0x01, 0x77, 0x4A, 0x08] + [UInt8](repeating: 0, count: 8)
        let graph: [UInt8] = [0x2A, UInt8(initializer.count)] + initializer
        let model: [UInt8] = [0x08, 0x06, 0x3A, UInt8(graph.count)] + graph + [0x42, 0x02, 0x10, 0x0B]  // opset: version 11
        #expect(throws: ONNXError.invalidTensor(name: "w", reason: "shape [3] needs 12 bytes of type 1, the file holds 8")) {
            try ONNXModel(bytes: model)
        }
        #expect(ONNXError.invalidTensor(name: "w", reason: "x").description == "ONNX tensor \"w\": x")
    }
}
