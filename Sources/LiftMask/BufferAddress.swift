// The start address of a buffer LiftMask has already checked to be non-empty.

extension UnsafeBufferPointer {
    /// The address of the first element. Every image and map reaching a kernel has at least one
    /// pixel (checked by the stage's entry point), so an empty buffer here is a broken invariant.
    @inline(__always)
    package var nonEmptyBase: UnsafePointer<Element> {
        guard let base = baseAddress else { preconditionFailure("LiftMask kernel given an empty buffer") }
        return base
    }
}

extension UnsafeMutableBufferPointer {
    /// The address of the first element (see `UnsafeBufferPointer.nonEmptyBase`).
    @inline(__always)
    package var nonEmptyBase: UnsafeMutablePointer<Element> {
        guard let base = baseAddress else { preconditionFailure("LiftMask kernel given an empty buffer") }
        return base
    }
}
