/// A whole-frame resize done one axis at a time: the taps (source indices and weights) of every
/// target column and of every target row, computed once. `AreaResize` and `LanczosResize` are its
/// two kinds of taps, each with its own `apply`.
struct SeparableResize<Taps: ResizeTaps> {
    /// Taps of each target column (across the source's width) and of each target row.
    let columns: Taps
    let rows: Taps
    /// The target size in pixels.
    let width: Int
    let height: Int

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        columns = Taps(target: width, source: sourceWidth)
        rows = Taps(target: height, source: sourceHeight)
        self.width = width
        self.height = height
    }
}

/// One axis's resampling taps from `source` pixels to `target`.
protocol ResizeTaps {
    init(target: Int, source: Int)
}
