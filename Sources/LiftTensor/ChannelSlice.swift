/// A run of channels of every pixel: input `[N, H, W, C]`, output `[N, H, W, end − start]` holding
/// channels `start ..< end` (the inverse of `Concat`: a graph that reads several maps passed as one
/// concatenated input takes them apart with it).
public enum ChannelSlice {
    /// The output shape, or nil unless `0 ≤ start < end ≤ C`.
    public static func outputShape(for x: TensorShape, start: Int, end: Int) -> TensorShape? {
        guard start >= 0, start < end, end <= x.c else { return nil }
        return TensorShape(n: x.n, h: x.h, w: x.w, c: end - start)
    }

    /// Copies channels `start ..< start + output.c` of each of `input`'s pixels into `output`
    /// (allocates nothing).
    public static func run(input: Tensor, output: Tensor, start: Int, threads: Int = Parallel.defaultThreads) {
        let s = input.shape, width = output.shape.c
        precondition(outputShape(for: s, start: start, end: start + width) == output.shape && input !== output,
                     "channels \(start) ..< \(start + width) of \(s) cannot fill \(output.shape), or the input is the output")
        let total = s.c, pixels = s.n * s.h * s.w, source = input.data + start, destination = output.data
        Parallel.forEach(count: pixels, threads: threads, minimumPerPart: WorkGate.minimumItems(bytesPerItem: 8 * width)) { range in
            for pixel in range {
                copyFloats(source + pixel &* total, destination + pixel &* width, count: width)
            }
        }
    }
}
