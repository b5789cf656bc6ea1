import LiftParallel

/// Turns a frame's decoded sample planes into an RGBA8 image: upsamples each component row by
/// row and converts the colour space, in bands of rows on several threads (every row is computed
/// the same way whatever the split).
struct JPEGPixelAssembler {
    let frame: JPEGFrame
    let storage: JPEGFrameStorage
    let colorSpace: JPEGInfo.ColorSpace

    /// The stored-orientation RGBA image (alpha 255), made on up to `threads` threads.
    func rgba(threads: Int) -> RGBAImage {
        let width = frame.width, height = frame.height
        // Every byte is written below, so the buffer is not zeroed first.
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            let base = buffer.baseAddress.unsafelyUnwrapped
            Parallel.forEach(count: height, threads: threads, minimumPerPart: 64) { rows in
                assemble(rows: rows, into: base)
            }
            initialized = width * height * 4
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Writes output rows `rows` of the RGBA image at `base`, with row buffers of its own.
    private func assemble(rows: Range<Int>, into base: UnsafeMutablePointer<UInt8>) {
        let width = frame.width
        let scratchWidth = frame.mcusPerLine * 8 * frame.hMax
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: scratchWidth * frame.components.count)
        scratch.initialize(repeating: 0, count: scratchWidth * frame.components.count)
        let columnSums = UnsafeMutablePointer<Int16>.allocate(capacity: scratchWidth * frame.components.count)
        columnSums.initialize(repeating: 0, count: scratchWidth * frame.components.count)
        defer {
            scratch.deallocate()
            columnSums.deallocate()
        }
        let upsamplers = frame.components.enumerated().map { index, c in
            JPEGComponentUpsampler(
                method: JPEGComponentUpsampler.method(h: c.h, v: c.v, hMax: frame.hMax, vMax: frame.vMax,
                                                      downsampledWidth: c.downsampledWidth),
                plane: UnsafePointer(storage.planes[index]), stride: storage.strides[index],
                width: c.downsampledWidth, height: c.downsampledHeight, scratch: scratch + index * scratchWidth,
                columnSums: columnSums + index * scratchWidth)
        }
        for y in rows {
            let out = base + y &* width &* 4
            switch colorSpace {
            case .grayscale:
                JPEGColorConversion.grayRow(upsamplers[0].row(y), out, count: width)
            case .yCbCr:
                JPEGColorConversion.yccRow(upsamplers[0].row(y), upsamplers[1].row(y), upsamplers[2].row(y), out, count: width)
            case .rgb:
                JPEGColorConversion.rgbRow(upsamplers[0].row(y), upsamplers[1].row(y), upsamplers[2].row(y), out, count: width)
            case .cmyk, .ycck:
                JPEGColorConversion.cmykRow(upsamplers[0].row(y), upsamplers[1].row(y), upsamplers[2].row(y),
                                            upsamplers[3].row(y), ycck: colorSpace == .ycck, out, count: width)
            }
        }
    }
}
