import Foundation

/// Reading and writing image files for `SubjectLifter` users: PNG and JPEG in (EXIF orientation
/// applied), PNG out, written atomically. Every failure is a `LiftError` naming the file.
public enum ImageFiles {
    /// Largest file or standard-input stream read into memory (1 GiB); decoders apply their own
    /// pixel limits (`DecodingLimits`) on top.
    public static let maxFileBytes = 1 << 30

    /// Loads a PNG or JPEG file as straight-alpha RGBA.
    public static func load(_ path: String, limits: DecodingLimits = .default) throws(LiftError) -> RGBAImage {
        try decode(try readFile(path), name: path, limits: limits)
    }

    /// Decodes PNG or JPEG bytes (told apart by their content, through `ImageIO`); `name` is used
    /// in error messages.
    public static func decode(_ bytes: [UInt8], name: String, limits: DecodingLimits = .default) throws(LiftError) -> RGBAImage {
        guard ImageFormat.sniff(bytes) != nil else { throw .unsupportedFormat(path: name) }
        do {
            return try ImageIO.decode(bytes, limits: limits)
        } catch {
            throw .undecodable(path: name, underlying: error)
        }
    }

    /// Encodes an RGBA image as PNG (the smallest lossless colour type that holds it) on `threads`
    /// threads (`nil`: every core; the bytes do not depend on it).
    public static func encodePNG(_ image: RGBAImage, name: String = "image", threads: Int? = nil) throws(LiftError) -> [UInt8] {
        do {
            return try PNGEncoder.encode(image, options: PNGEncoder.Options(reduceColorType: true, threads: threads))
        } catch {
            throw .encodingFailed(path: name, underlying: error)
        }
    }

    /// Encodes a grey image (a mask or a label map) as an 8-bit grey PNG, with the fast settings
    /// made for masks (large flat areas), on `threads` threads (`nil`: every core).
    public static func encodePNG(_ image: GrayImage, name: String = "image", threads: Int? = nil) throws(LiftError) -> [UInt8] {
        var options = PNGEncoder.Options.fast
        options.threads = threads
        do {
            return try PNGEncoder.encode(image, options: options)
        } catch {
            throw .encodingFailed(path: name, underlying: error)
        }
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

    /// Writes `bytes` to `path` through a temporary file and a rename, creating missing parent directories.
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool = true) throws(LiftError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .writeFailed(path: path, reason: "cannot create directory \(directory): \(reasonText(error))")
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
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadableFile(path: path, reason: systemReason()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadableFile(path: path, reason: systemReason()) }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw .unreadableFile(path: path, reason: "it is a directory") }
        guard status.st_size <= maxFileBytes else { throw .fileTooLarge(path: path, limit: maxFileBytes) }
        return try readAll(descriptor, name: path, expected: Int(status.st_size))
    }

    /// Everything on standard input (at most `maxFileBytes`).
    public static func readStandardInput() throws(LiftError) -> [UInt8] {
        try readAll(STDIN_FILENO, name: "<stdin>", expected: 1 << 16)
    }

    /// Reads `descriptor` to its end, growing the buffer as needed, failing past `maxFileBytes`.
    private static func readAll(_ descriptor: Int32, name: String, expected: Int) throws(LiftError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(expected, 1) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= maxFileBytes else { throw .fileTooLarge(path: name, limit: maxFileBytes) }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, maxFileBytes + 1 - count)))
            }
            let got = bytes.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress.map { $0 + count }, raw.count - count)
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .unreadableFile(path: name, reason: systemReason()) }
            if got == 0 { break }
            count += got
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// The system's sentence for the current `errno`.
    private static func systemReason() -> String { String(cString: strerror(errno)) }

    /// A short reason from a Foundation error.
    private static func reasonText(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
