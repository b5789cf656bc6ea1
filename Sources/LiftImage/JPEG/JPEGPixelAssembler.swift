/// Turns a frame's decoded sample planes into an RGBA8 image: upsamples each component row by
/// row and converts the colour space.
struct JPEGPixelAssembler {
    let frame: JPEGFrame
    let storage: JPEGFrameStorage
    let colorSpace: JPEGInfo.ColorSpace
    let limits: DecodingLimits

    /// The stored-orientation RGBA image (alpha 255).
    func rgba() throws(JPEGError) -> RGBAImage {
        let width = frame.width, height = frame.height
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
        // Every byte is written below, so the buffer is not zeroed first.
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            let base = buffer.baseAddress.unsafelyUnwrapped
            for y in 0 ..< height {
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
            initialized = width * height * 4
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
