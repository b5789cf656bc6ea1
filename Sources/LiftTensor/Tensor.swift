/// The shape of an NHWC tensor: batch, height, width, channels (all ≥ 0).
public struct TensorShape: Hashable, Sendable, CustomStringConvertible {
    /// Batch size N.
    public var n: Int
    /// Height H (rows).
    public var h: Int
    /// Width W (columns).
    public var w: Int
    /// Channels C (innermost, contiguous).
    public var c: Int

    /// A shape `[n, h, w, c]`; every dimension must be non-negative.
    public init(n: Int, h: Int, w: Int, c: Int) {
        precondition(n >= 0 && h >= 0 && w >= 0 && c >= 0, "TensorShape dimensions must be non-negative")
        self.n = n
        self.h = h
        self.w = w
        self.c = c
    }

    /// Number of elements `n·h·w·c`, or nil if it overflows `Int`.
    public var checkedCount: Int? {
        let (nh, o1) = n.multipliedReportingOverflow(by: h)
        let (nhw, o2) = nh.multipliedReportingOverflow(by: w)
        let (all, o3) = nhw.multipliedReportingOverflow(by: c)
        return o1 || o2 || o3 ? nil : all
    }

    /// Number of elements `n·h·w·c` (traps on overflow; use `checkedCount` for untrusted shapes).
    public var count: Int { n * h * w * c }

    /// `[n, h, w, c]`.
    public var description: String { "[\(n), \(h), \(w), \(c)]" }
}

/// An NHWC Float32 tensor in 64-byte aligned storage that the tensor owns.
///
/// Layout: element `(b, y, x, ch)` is at `((b·h + y)·w + x)·c + ch`. A tensor has a fixed `capacity`
/// (in elements) chosen at creation and a current `shape` that can be changed with `reshape(to:)` to
/// any shape that fits, so an executor can plan buffers once and reuse them for every run.
///
/// Storage always extends `Tensor.readSlack` elements past `capacity`, zero-filled at creation, so
/// kernels may load a full SIMD vector that starts at any valid element. Kernels never write there.
///
/// A `Tensor` is a reference type; kernels write into the tensor the caller passes as `output`.
/// Concurrent reads are safe; writes must not race with reads or writes of the same tensor.
public final class Tensor: @unchecked Sendable {
    /// Elements readable (never written by kernels) past the end of `capacity`.
    public static let readSlack = 16
    /// Byte alignment of `data`.
    public static let alignment = 64

    /// Current shape; `shape.count <= capacity`.
    public private(set) var shape: TensorShape
    /// Elements the storage can hold.
    public let capacity: Int
    /// The storage: `capacity + readSlack` floats, 64-byte aligned, valid for the tensor's lifetime.
    public let data: UnsafeMutablePointer<Float>

    /// A zero-filled tensor of `shape`, with room for `capacity` elements (default: exactly the shape).
    public init(shape: TensorShape, capacity: Int? = nil) {
        let needed = shape.count
        let capacity = capacity ?? needed
        precondition(capacity >= needed, "Tensor capacity \(capacity) is smaller than shape \(shape)")
        self.shape = shape
        self.capacity = capacity
        let raw = UnsafeMutableRawPointer.allocate(byteCount: (capacity + Tensor.readSlack) * 4,
                                                   alignment: Tensor.alignment)
        data = raw.initializeMemory(as: Float.self, repeating: 0, count: capacity + Tensor.readSlack)
    }

    /// A tensor of `shape` holding `values` (NHWC order); `values.count` must equal `shape.count`.
    public convenience init(shape: TensorShape, values: [Float]) {
        precondition(values.count == shape.count, "Tensor of shape \(shape) needs \(shape.count) values, got \(values.count)")
        self.init(shape: shape)
        values.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { data.update(from: base, count: values.count) }
        }
    }

    /// A tensor `[n, h, w, c]` filled with zeros.
    public convenience init(n: Int = 1, h: Int, w: Int, c: Int) {
        self.init(shape: TensorShape(n: n, h: h, w: w, c: c))
    }

    deinit { data.deallocate() }

    /// Number of elements in the current shape.
    public var count: Int { shape.count }

    /// Changes the shape without touching the data; the new shape must fit in `capacity`.
    public func reshape(to newShape: TensorShape) {
        precondition(newShape.count <= capacity, "shape \(newShape) does not fit a tensor of capacity \(capacity)")
        shape = newShape
    }

    /// Sets every element of the current shape to `value`.
    public func fill(_ value: Float) {
        data.update(repeating: value, count: count)
    }

    /// The current elements, NHWC order, copied into an array.
    public func toArray() -> [Float] {
        Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// The elements of the current shape as a buffer (valid while the tensor is alive).
    public var buffer: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: data, count: count)
    }

    /// Element `(b, y, x, ch)`; bounds are checked by precondition.
    public subscript(b: Int, y: Int, x: Int, ch: Int) -> Float {
        get { data[index(b, y, x, ch)] }
        set { data[index(b, y, x, ch)] = newValue }
    }

    @inline(__always)
    private func index(_ b: Int, _ y: Int, _ x: Int, _ ch: Int) -> Int {
        precondition(b >= 0 && b < shape.n && y >= 0 && y < shape.h && x >= 0 && x < shape.w && ch >= 0 && ch < shape.c,
                     "index (\(b), \(y), \(x), \(ch)) outside tensor of shape \(shape)")
        return ((b * shape.h + y) * shape.w + x) * shape.c + ch
    }
}
