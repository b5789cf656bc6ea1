import LiftImage
import LiftTensor

/// An 8-bit RGBA image (straight alpha) made one row at a time, in any order and from any thread, so
/// a consumer that takes rows as it goes (the PNG encoder) never needs the image whole: a composite
/// (`CompositeRows`), its area-averaged reduction (`AreaDownscale.Rows`), or a stored image.
public protocol RGBARows: Sendable {
    /// Size in pixels.
    var width: Int { get }
    var height: Int { get }
    /// True only when every pixel is known to have alpha 255 (false says nothing).
    var isOpaque: Bool { get }
    /// Bytes of scratch `render` needs (allocate them 16-byte aligned, one per thread).
    var scratchBytes: Int { get }
    /// Writes row `y` (0 ..< `height`) as RGBA8 to `out` (`width * 4` bytes), using `scratch`.
    func render(row y: Int, into out: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutableRawPointer)
}

extension RGBARows {
    /// Every row rendered into one image, rows split over `threads`.
    public func image(threads: Int = Parallel.defaultThreads) -> RGBAImage {
        let rowBytes = width * 4, area = width * height, scratchBytes = max(scratchBytes, 16)
        let pixels = [UInt8](unsafeUninitializedCapacity: area * 4) { out, initialized in
            nonisolated(unsafe) let out = out
            Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { range in
                let scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchBytes, alignment: 16)
                defer { scratch.deallocate() }
                for y in range { render(row: y, into: out.nonEmptyBase + y &* rowBytes, scratch: scratch) }
            }
            initialized = area * 4
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}

/// The rows of a stored image.
struct StoredRGBARows: RGBARows {
    let stored: RGBAImage
    var width: Int { stored.width }
    var height: Int { stored.height }
    var isOpaque: Bool { false }
    var scratchBytes: Int { 0 }

    func render(row y: Int, into out: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutableRawPointer) {
        stored.pixels.withUnsafeBufferPointer { out.update(from: $0.nonEmptyBase + y &* width &* 4, count: width &* 4) }
    }
}
