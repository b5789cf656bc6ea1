/// The weight tensors a graph's nodes read, each converted to Float32 once however many nodes name
/// it (so a small file cannot multiply its memory by naming one tensor in many nodes) and checked to
/// hold only finite numbers (a NaN or infinity would silently turn every output into garbage).
final class WeightTensors {
    /// The file the tensors come from.
    let file: SafeTensors
    private var converted: [String: [Float]] = [:]

    init(_ file: SafeTensors) {
        self.file = file
    }

    /// The shape of tensor `name`, or nil when the file lacks it.
    func shape(_ name: String) -> [Int]? {
        file.tensors[name]?.shape
    }

    /// The elements of tensor `name` as Float32, in stored order.
    /// - Throws: `SafeTensorsError` for a missing tensor or an unsupported dtype,
    ///   `GraphError.nonFiniteWeight` when an element is NaN or infinite.
    func floats(_ name: String) throws -> [Float] {
        if let values = converted[name] { return values }
        let values = try file.floats(name)
        if let bad = values.firstIndex(where: { !$0.isFinite }) { throw GraphError.nonFiniteWeight(tensor: name, index: bad) }
        converted[name] = values
        return values
    }
}
