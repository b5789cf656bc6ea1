import Foundation

/// Reading and writing image files for `SubjectLifter` users: PNG and JPEG in (EXIF orientation
/// applied), PNG out, written atomically. Every failure is a `LiftError` naming the file.
public enum ImageFiles {
    /// Largest file or standard-input stream read into memory (1 GiB, `ImageIO.maxFileBytes`);
    /// decoders apply their own pixel limits (`DecodingLimits`) on top.
    public static let maxFileBytes = ImageIO.maxFileBytes

    /// Loads a PNG or JPEG file as straight-alpha RGBA, decoding on up to `threads` threads (`nil`: every core).
    public static func load(_ path: String, limits: DecodingLimits = .default, threads: Int? = nil) throws(LiftError) -> RGBAImage {
        try decode(try readFile(path), name: path, limits: limits, threads: threads)
    }

    /// Decodes PNG or JPEG bytes (told apart by their content, through `ImageIO`) on up to `threads`
    /// threads (`nil`: every core); `name` is used in error messages.
    public static func decode(_ bytes: [UInt8], name: String, limits: DecodingLimits = .default,
                              threads: Int? = nil) throws(LiftError) -> RGBAImage {
        try decodePhoto(bytes, name: name, limits: limits, threads: threads).image
    }

    /// Decodes like `decode` and keeps the file's colour description (`ImageIO.decodePhoto`) for
    /// `encodePNG(_:name:level:color:threads:)`.
    public static func decodePhoto(_ bytes: [UInt8], name: String, limits: DecodingLimits = .default,
                                   threads: Int? = nil) throws(LiftError) -> DecodedPhoto {
        guard ImageFormat.sniff(bytes) != nil else { throw .unsupportedFormat(path: name) }
        do {
            return try ImageIO.decodePhoto(bytes, limits: limits, threads: threads)
        } catch {
            throw .undecodable(path: name, underlying: error)
        }
    }

    /// zlib level for cut-outs and photos: 4 takes about half of level 6's deflate time (libpng's and
    /// Pillow's default) for files ~2 % larger, measured on a 0.5 MP and a 2 MP cut-out (+2.2 % and
    /// +1.4 % bytes, 0.42× and 0.46× the time); deflate was the largest stage of a one-shot run.
    public static let defaultPNGLevel = 4

    /// `defaultPNGLevel` as a `PNGCompression` (the `--png-level` default; `.fast` is the other kind).
    public static let defaultPNGCompression = PNGCompression.zlib(level: defaultPNGLevel)

    /// Encodes an RGBA image as PNG (the smallest lossless colour type that holds it) at zlib `level`
    /// (0 stored … 9 smallest) on `threads` threads (`nil`: every core; the bytes do not depend on it),
    /// with the colour chunks `color` (a profile that does not fit the colour type is left out).
    public static func encodePNG(_ image: RGBAImage, name: String = "image", level: Int = defaultPNGLevel,
                                 color: PNGMetadata = PNGMetadata(), threads: Int? = nil) throws(LiftError) -> [UInt8] {
        try encodePNG(image, name: name, compression: .zlib(level: level), color: color, threads: threads)
    }

    /// `encodePNG(_:name:level:color:threads:)` compressed as `compression` says: a zlib level or
    /// `.fast`, Lift's own compressor.
    public static func encodePNG(_ image: RGBAImage, name: String = "image", compression: PNGCompression,
                                 color: PNGMetadata = PNGMetadata(), threads: Int? = nil) throws(LiftError) -> [UInt8] {
        do {
            let options = PNGEncoder.Options(level: compression, reduceColorType: true, metadata: color, threads: threads)
            return try PNGEncoder.encode(image, options: options)
        } catch {
            throw .encodingFailed(path: name, underlying: error)
        }
    }

    /// Encodes a composite made row by row (`Analysis.imageRows`) like `encodePNG(_:name:compression:color:threads:)`
    /// encodes the same image whole, to the same bytes: the rows are rendered as the compressor takes
    /// them, on its threads, so the composite is never held whole.
    public static func encodePNG(_ rows: any RGBARows, name: String = "image", compression: PNGCompression = defaultPNGCompression,
                                 color: PNGMetadata = PNGMetadata(), threads: Int? = nil) throws(LiftError) -> [UInt8] {
        let width = rows.width
        do {
            let options = PNGEncoder.Options(level: compression, reduceColorType: true, metadata: color, threads: threads)
            return try PNGEncoder.encode(width: width, height: rows.height, layout: .rgba, options: options,
                                         opaqueKnown: rows.isOpaque) { y, out in
                let scratch = UnsafeMutableRawPointer.allocate(byteCount: max(rows.scratchBytes, 16), alignment: 16)
                defer { scratch.deallocate() }
                rows.render(row: y, into: out, scratch: scratch)
            }
        } catch {
            throw .encodingFailed(path: name, underlying: error)
        }
    }

    /// Encodes a grey image (a mask) as an 8-bit grey PNG whose samples are the image's values, so
    /// that any reader (`numpy.asarray(PIL.Image.open(…))`, OpenCV) gets them back as they are, with
    /// the fast settings made for masks (large flat areas), on `threads` threads (`nil`: every core).
    public static func encodePNG(_ image: GrayImage, name: String = "image", threads: Int? = nil) throws(LiftError) -> [UInt8] {
        try encodeData(PNGSamples(image), name: name, threads: threads)
    }

    /// Encodes an instance label map as a grey PNG whose samples are the subject numbers (0 is
    /// background): 8-bit up to 255 subjects, 16-bit beyond.
    public static func encodeLabelsPNG(_ labels: LabelMap, name: String = "labels", threads: Int? = nil) throws(LiftError) -> [UInt8] {
        let storage: PNGSamples.Storage = labels.count <= 255 ? .eight(labels.labels.map { UInt8(truncatingIfNeeded: $0) })
            : .sixteen(labels.labels.map { UInt16(clamping: $0) })
        return try encodeData(PNGSamples(width: labels.width, height: labels.height, layout: .gray, storage: storage),
                              name: name, threads: threads)
    }

    /// `encodeLabelsPNG(analysis.labels)`, the same bytes; up to 255 subjects the rows are rendered from
    /// the analysis's runs as the encoder takes them, so no photo-sized label image is made.
    public static func encodeLabelsPNG(of analysis: Analysis, name: String = "labels", threads: Int? = nil) throws(LiftError) -> [UInt8] {
        let labels = analysis.runLabels, width = labels.width
        guard labels.count <= 255 else { return try encodeLabelsPNG(analysis.labels, name: name, threads: threads) }
        do {
            return try PNGEncoder.encode(width: width, height: labels.height, layout: .gray, options: dataOptions(threads: threads)) { y, out in
                let row = UnsafeMutablePointer<Int32>.allocate(capacity: width)
                defer { row.deallocate() }
                labels.render(row: y, into: row)
                for x in 0 ..< width { out[x] = UInt8(truncatingIfNeeded: row[x]) }
            }
        } catch {
            throw .encodingFailed(path: name, underlying: error)
        }
    }

    /// `encodePNG(analysis.maskImage(for: subjects))`, the same bytes, with the mask's rows rendered as
    /// the encoder takes them (no photo-sized mask image).
    /// - Throws: `LiftError.encodingFailed`; `MaskError.unknownSubject` for a subject not from `analysis`.
    public static func encodeMaskPNG(of analysis: Analysis, for subjects: [Subject], name: String = "mask",
                                     threads: Int? = nil) throws -> [UInt8] {
        let rows = try analysis.maskRows(for: subjects), width = rows.width
        do {
            return try rows.withRowReader { read in
                try PNGEncoder.encode(width: width, height: rows.height, layout: .gray, options: dataOptions(threads: threads)) { y, out in
                    let scratch = rows.allocateScratch()
                    defer { scratch.deallocate() }
                    let row = read(y, scratch)
                    for x in 0 ..< width { out[x] = FloatMap.quantised(row[x]) }
                }
            }
        } catch {
            throw LiftError.encodingFailed(path: name, underlying: error)
        }
    }

    /// Grey samples written as they are (no palette, no bit-depth reduction), fast settings.
    private static func encodeData(_ samples: PNGSamples, name: String, threads: Int?) throws(LiftError) -> [UInt8] {
        do {
            return try PNGEncoder.encode(samples, options: dataOptions(threads: threads))
        } catch {
            throw .encodingFailed(path: name, underlying: error)
        }
    }

    /// The fast settings made for masks and label maps, the layout kept.
    private static func dataOptions(threads: Int?) -> PNGEncoder.Options {
        var options = PNGEncoder.Options.fast
        options.reduceColorType = false
        options.threads = threads
        return options
    }

    /// Writes an RGBA image to `path` as PNG, atomically.
    /// - Parameter overwrite: when false, an existing file is an error and stays untouched.
    public static func savePNG(_ image: RGBAImage, to path: String, overwrite: Bool = true) throws(LiftError) {
        try write(try encodePNG(image, name: path), to: path, overwrite: overwrite)
    }

    /// Writes a grey image to `path` as PNG, atomically.
    public static func savePNG(_ image: GrayImage, to path: String, overwrite: Bool = true) throws(LiftError) {
        try write(try encodePNG(image, name: path), to: path, overwrite: overwrite)
    }

    /// Writes `bytes` to `path` through a temporary file (`AtomicFile`), creating missing parent directories.
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool = true) throws(LiftError) {
        let directory = PathText.directory(of: path)
        if !Directories.exists(directory) {
            do throws(Directories.Failure) {
                try Directories.create(directory)
            } catch {
                throw .writeFailed(path: path, reason: "cannot create directory \(error.path): \(error.reason)")
            }
        }
        do {
            try AtomicFile.write(bytes, to: path, overwrite: overwrite)
        } catch {
            throw .writeFailed(path: path, reason: error.reason)
        }
    }

    /// The whole contents of the file at `path` (at most `maxFileBytes`).
    public static func readFile(_ path: String) throws(LiftError) -> [UInt8] {
        do {
            return try ImageIO.readFile(path, maxBytes: maxFileBytes)
        } catch {
            // A name that was not UTF-8 reaches Swift with U+FFFD in place of its bytes: that spelling
            // names no file, and "no such file" would mislead.
            if hasUndecodableName(path), !Directories.exists(path) {
                throw .unreadableFile(path: path, reason: notUTF8Reason)
            }
            throw LiftError(reading: error)
        }
    }

    /// Why a path holding U+FFFD names no file: the name was not UTF-8 and its bytes were replaced.
    public static let notUTF8Reason = "the file name is not valid UTF-8 (shown with �), which Lift cannot open; rename the file"

    /// Whether `path` holds the replacement character that stands for bytes of a name that were not UTF-8.
    public static func hasUndecodableName(_ path: String) -> Bool { path.contains("\u{FFFD}") }

    /// Everything on standard input (at most `maxFileBytes`); a stream that does not start like a PNG
    /// or JPEG is refused after its first bytes.
    public static func readStandardInput() throws(LiftError) -> [UInt8] {
        do {
            return try ImageIO.readStandardInput(maxBytes: maxFileBytes, imagesOnly: true)
        } catch {
            if case .unknownFormat = error { throw .unsupportedFormat(path: "<stdin>") }
            throw LiftError(reading: error)
        }
    }
}

extension LiftError {
    /// The `LiftError` for a failed `ImageIO` read, keeping its path and reason.
    init(reading error: ImageIOError) {
        switch error {
        case .cannotRead(let path, let reason): self = .unreadableFile(path: path, reason: reason)
        case .fileTooLarge(let path, let limit): self = .fileTooLarge(path: path, limit: limit)
        case .unknownFormat: preconditionFailure("ImageIO's readers do not sniff formats, yet one threw \(error)")
        }
    }
}
