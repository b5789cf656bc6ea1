/// What the importer knows about an ONNX value that is not a Lift tensor: a constant (initializer,
/// `Constant`) or a small integer list computed from tensor shapes (`Shape` → `Gather` → `Concat`…),
/// element by element. Lift's graph has no shape arithmetic; these values are folded away and only
/// their meaning reaches the Lift graph (a `Resize` whose `sizes` are "the height and width of T"
/// becomes `resize_bilinear` with T as its `like` input).
struct ONNXKnownValue: Equatable {
    /// One element: a number, or an expression over the sizes of Lift tensors.
    indirect enum Element: Equatable {
        /// A number (integers and floats alike).
        case number(Double)
        /// Size `axis` (ONNX NCHW order: 2 height, 3 width) of the Lift tensor named `value`.
        case size(value: String, axis: Int)
        /// `lhs / rhs` of two expressions that are not both numbers.
        case quotient(Element, Element)
        /// `lhs * rhs`.
        case product(Element, Element)
        /// `lhs + rhs`.
        case sum(Element, Element)
        /// `lhs - rhs`.
        case difference(Element, Element)
        /// `floor(x)` (also an integer cast of a non-integer expression).
        case floor(Element)

        /// The number, when the element is one.
        var number: Double? {
            if case .number(let value) = self { return value }
            return nil
        }
    }

    /// Dimensions (empty for a scalar).
    var dims: [Int]
    /// The elements, row-major (`dims`' product of them).
    var elements: [Element]
    /// Whether the ONNX element type is an integer type (its `Div` truncates).
    var isInteger: Bool

    /// A constant from its numbers.
    init(dims: [Int], numbers: [Double], isInteger: Bool) {
        self.dims = dims
        elements = numbers.map { .number($0) }
        self.isInteger = isInteger
    }

    /// A value from its elements.
    init(dims: [Int], elements: [Element], isInteger: Bool) {
        self.dims = dims
        self.elements = elements
        self.isInteger = isInteger
    }

    /// The numbers, when every element is one.
    var numbers: [Double]? {
        let numbers = elements.compactMap(\.number)
        return numbers.count == elements.count ? numbers : nil
    }

    /// The numbers as integers, when every element is an integral number.
    var integers: [Int]? {
        guard let numbers, numbers.allSatisfy({ $0.rounded() == $0 && abs($0) < 1e15 }) else { return nil }
        return numbers.map { Int($0) }
    }

    /// Applies `opType` (`Add`, `Sub`, `Mul`, `Div`) element by element with ONNX broadcasting restricted to what shape
    /// arithmetic uses: equal element counts, or one side with a single element.
    static func combine(_ a: ONNXKnownValue, _ b: ONNXKnownValue, _ opType: String) -> ONNXKnownValue? {
        guard a.elements.count == b.elements.count || a.elements.count == 1 || b.elements.count == 1 else { return nil }
        let count = max(a.elements.count, b.elements.count)
        let dims = a.elements.count >= b.elements.count ? a.dims : b.dims
        var elements: [Element] = []
        for index in 0 ..< count {
            let x = a.elements[a.elements.count == 1 ? 0 : index], y = b.elements[b.elements.count == 1 ? 0 : index]
            guard let element = combine(x, y, opType, integer: a.isInteger && b.isInteger) else { return nil }
            elements.append(element)
        }
        return ONNXKnownValue(dims: dims, elements: elements, isInteger: a.isInteger && b.isInteger)
    }

    /// One element of `Add`, `Sub`, `Mul` or `Div`, folded when both sides are numbers; integer
    /// division truncates, as ONNX's does on integer tensors (sizes are positive, so a symbolic
    /// quotient of integers is its floor).
    private static func combine(_ x: Element, _ y: Element, _ opType: String, integer: Bool) -> Element? {
        if let p = x.number, let q = y.number {
            switch opType {
            case "Add": return .number(p + q)
            case "Sub": return .number(p - q)
            case "Mul": return .number(p * q)
            case "Div": return q == 0 ? nil : .number(integer ? (p / q).rounded(.towardZero) : p / q)
            default: return nil
            }
        }
        switch opType {
        case "Add": return .sum(x, y)
        case "Sub": return .difference(x, y)
        case "Mul": return y.number == 1 ? x : x.number == 1 ? y : .product(x, y)
        case "Div": return y.number == 1 ? x : integer ? .floor(.quotient(x, y)) : .quotient(x, y)
        default: return nil
        }
    }
}
