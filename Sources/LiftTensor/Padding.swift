/// Explicit spatial padding of a 2-D window op, in pixels: rows added on top and bottom, columns on
/// the left and right. Values may exceed half the kernel.
public struct Padding: Hashable, Sendable, CustomStringConvertible {
    /// Rows before the first input row.
    public var top: Int
    /// Columns before the first input column.
    public var left: Int
    /// Rows after the last input row.
    public var bottom: Int
    /// Columns after the last input column.
    public var right: Int

    /// Padding `[top, left, bottom, right]` (the order of `lift.graph/1`); all must be ≥ 0.
    public init(top: Int, left: Int, bottom: Int, right: Int) {
        precondition(top >= 0 && left >= 0 && bottom >= 0 && right >= 0, "padding must be non-negative")
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// No padding.
    public static let zero = Padding(top: 0, left: 0, bottom: 0, right: 0)

    /// TensorFlow SAME padding for one axis: total `max((ceil(in/stride)−1)·stride + (k−1)·dilation + 1 − in, 0)`,
    /// the smaller half before (top/left), the larger after.
    public static func sameAxis(input: Int, kernel: Int, stride: Int, dilation: Int) -> (before: Int, after: Int) {
        precondition(stride >= 1 && dilation >= 1 && kernel >= 1, "SAME padding needs kernel, stride, dilation ≥ 1")
        let outputs = (input + stride - 1) / stride
        let total = max((outputs - 1) * stride + (kernel - 1) * dilation + 1 - input, 0)
        return (total / 2, total - total / 2)
    }

    /// TensorFlow SAME padding for an input of `height × width` and a window of `kernel` (kh, kw).
    public static func same(height: Int, width: Int, kernel: (Int, Int), stride: (Int, Int) = (1, 1),
                            dilation: (Int, Int) = (1, 1)) -> Padding {
        let vertical = sameAxis(input: height, kernel: kernel.0, stride: stride.0, dilation: dilation.0)
        let horizontal = sameAxis(input: width, kernel: kernel.1, stride: stride.1, dilation: dilation.1)
        return Padding(top: vertical.before, left: horizontal.before, bottom: vertical.after, right: horizontal.after)
    }

    /// `[top, left, bottom, right]`.
    public var description: String { "[\(top), \(left), \(bottom), \(right)]" }
}

/// How a window op pads: none, TensorFlow SAME (resolved per input size), or explicit pixels.
public enum PaddingMode: Hashable, Sendable {
    /// No padding (`"valid"`).
    case valid
    /// TensorFlow SAME (`"same"`): output `ceil(in / stride)`, the smaller half on top/left.
    case same
    /// Fixed `[top, left, bottom, right]`.
    case explicit(Padding)

    /// The padding used for an input of `height × width` with this window geometry.
    public func resolve(height: Int, width: Int, kernel: (Int, Int), stride: (Int, Int),
                        dilation: (Int, Int) = (1, 1)) -> Padding {
        switch self {
        case .valid: return .zero
        case .same: return Padding.same(height: height, width: width, kernel: kernel, stride: stride, dilation: dilation)
        case .explicit(let padding): return padding
        }
    }
}
