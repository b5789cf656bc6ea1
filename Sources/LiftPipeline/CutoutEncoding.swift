import Lift

/// A cut-out's images encoded in the format the request asks for (`CutoutOutputs`): PNG rendered row
/// by row as the compressor takes them, so the composite is never held whole; lossless WebP and JPEG
/// from the whole image. The photo's ICC profile goes into every colour image.
enum CutoutEncoding {
    /// The composite `rows` encoded as `format`.
    /// - Throws: `LiftError.encodingFailed` naming `name` (a side over the format's limit, a
    ///   transparent pixel in a JPEG).
    static func encode(_ rows: any RGBARows, as format: OutputFormat, outputs: CutoutOutputs, color: PNGMetadata,
                       name: String, threads: Int) throws(LiftError) -> [UInt8] {
        do {
            switch format {
            case .png:
                return try ImageFiles.encodePNG(rows, name: name, compression: outputs.pngCompression, color: color, threads: threads)
            case .webp:
                return try ImageIO.encodeWebP(rows.image(threads: threads), color: color, options: WebPEncoder.Options(threads: threads))
            case .jpeg:
                var options = jpegOptions(outputs, threads: threads)
                if let chunk = color.iCCP, PNGColorProfile.colorSpace(ofChunk: chunk) == .rgb {
                    options.iccProfile = PNGColorProfile.profile(fromChunk: chunk)
                }
                return try JPEGEncoder.encode(rows.image(threads: threads), options: options)
            }
        } catch let error as LiftError {
            throw error
        } catch {
            throw .encodingFailed(path: name, underlying: error)
        }
    }

    /// The grey mask of `subjects` (0 background … 255 subject, the photo's size) encoded as `format`:
    /// a grey PNG or JPEG, or an opaque WebP whose red, green and blue are the mask's value.
    /// - Throws: `LiftError.encodingFailed`; `MaskError.unknownSubject` for a subject not from `analysis`.
    static func encodeMask(of subjects: [Subject], from analysis: Analysis, as format: OutputFormat, outputs: CutoutOutputs,
                           name: String, threads: Int) throws -> [UInt8] {
        if format == .png { return try ImageFiles.encodeMaskPNG(of: analysis, for: subjects, name: name, threads: threads) }
        let mask = try analysis.maskImage(for: subjects)
        do {
            if format == .jpeg { return try JPEGEncoder.encode(mask, options: jpegOptions(outputs, threads: threads)) }
            var pixels = [UInt8](repeating: 255, count: mask.pixels.count * 4)
            for (index, value) in mask.pixels.enumerated() {
                pixels[index &* 4] = value
                pixels[index &* 4 &+ 1] = value
                pixels[index &* 4 &+ 2] = value
            }
            return try WebPEncoder.encode(RGBAImage(width: mask.width, height: mask.height, pixels: pixels),
                                          options: WebPEncoder.Options(threads: threads))
        } catch {
            throw LiftError.encodingFailed(path: name, underlying: error)
        }
    }

    /// The JPEG encoder's options for `outputs`: its quality (default 90), 4:2:0, optimised tables.
    private static func jpegOptions(_ outputs: CutoutOutputs, threads: Int) -> JPEGEncoder.Options {
        JPEGEncoder.Options(quality: outputs.jpegQuality ?? JPEGEncoder.defaultQuality, threads: threads)
    }
}
