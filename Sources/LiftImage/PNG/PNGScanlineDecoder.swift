/// The scanline pipeline: pulls a batch of filtered rows from the inflater, unfilters them in place and
/// hands each finished row to a sink, pass by pass. Peak memory is one batch of rows (~128 KiB).
struct PNGScanlineDecoder {
    let header: PNGHeader

    /// Bytes of filtered rows inflated per batch (at least one row).
    private static let batchBytes = 128 << 10

    /// Decodes every row of every pass; `sink(row, pass, y)` receives row `y` of `pass`, unfiltered,
    /// `rowBytes(pass.width)` bytes long, valid only during the call.
    func decode(from stream: PNGImageDataStream, sink: (UnsafePointer<UInt8>, PNGPass, Int) -> Void) throws {
        let passes = PNGPass.passes(for: header)
        let maxStride = 1 + header.rowBytes(pixels: header.width)
        let rowsPerBatch = max(1, Self.batchBytes / maxStride)
        // Layout: [previous row][batch rows...], each `stride` bytes with the filter byte first; padding for vector loads.
        let capacity = (rowsPerBatch + 1) * maxStride + 64
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        let bpp = header.filterStride
        for pass in passes {
            let stride = 1 + header.rowBytes(pixels: pass.width)
            let count = stride - 1
            buffer.initialize(repeating: 0, count: capacity)
            var y = 0
            while y < pass.height {
                let rows = min(rowsPerBatch, pass.height - y)
                let batch = buffer + stride
                try stream.read(into: batch, count: rows * stride)
                for r in 0..<rows {
                    let row = batch + r &* stride
                    let previous = row - stride
                    guard PNGUnfilter.apply(type: row[0], row: row + 1, previous: previous + 1, count: count, bpp: bpp) else {
                        throw PNGDataError.invalidFilterType(type: row[0], pass: pass.index, row: y + r)
                    }
                    sink(row + 1, pass, y + r)
                }
                // Keep the batch's last row as the next batch's previous row.
                buffer.update(from: batch + (rows - 1) * stride, count: stride)
                y += rows
            }
        }
    }
}
