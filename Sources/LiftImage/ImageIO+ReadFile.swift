import Foundation

extension ImageIO {
    /// Largest file or standard-input stream read into memory (1 GiB); decoders apply their own
    /// pixel limits (`DecodingLimits`) on top.
    public static let maxFileBytes = 1 << 30

    /// The whole contents of the file at `path`.
    /// - Parameter maxBytes: the largest file accepted (default `maxFileBytes`); checked against the
    ///   file's size before reading, and again while reading files whose size the system does not know.
    /// - Throws: `ImageIOError.cannotRead` with the system's reason ("No such file or directory",
    ///   "Permission denied", "it is a directory", "it is a named pipe (FIFO), not a regular file"…),
    ///   `.fileTooLarge` past `maxBytes`.
    ///
    /// Only regular files are read: a named pipe, device or socket is refused without being opened
    /// (so a FIFO with no writer cannot stall the caller, and opening a device has no effect), and
    /// checked again on the opened descriptor.
    /// - Parameter allowPipes: also read a named pipe to its end (a list given as `<(find …)`).
    public static func readFile(_ path: String, maxBytes: Int = maxFileBytes, allowPipes: Bool = false) throws(ImageIOError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .cannotRead(path: path, reason: systemReason()) }
        let isPipe = allowPipes && status.st_mode & S_IFMT == S_IFIFO
        if !isPipe, let kind = nonRegularKind(mode: status.st_mode) { throw .cannotRead(path: path, reason: notRegularReason(kind)) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | (isPipe ? 0 : O_NONBLOCK))
        guard descriptor >= 0 else { throw .cannotRead(path: path, reason: systemReason()) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else { throw .cannotRead(path: path, reason: systemReason()) }
        if isPipe, status.st_mode & S_IFMT == S_IFIFO { return try readAll(descriptor, name: path, expected: 1 << 16, maxBytes: maxBytes) }
        if let kind = nonRegularKind(mode: status.st_mode) { throw .cannotRead(path: path, reason: notRegularReason(kind)) }
        guard status.st_size <= maxBytes else { throw .fileTooLarge(path: path, limit: maxBytes) }
        return try readAll(descriptor, name: path, expected: Int(status.st_size), maxBytes: maxBytes)
    }

    /// What a file of type `mode` (`st_mode`) is when it is not a regular file ("a directory", "a named
    /// pipe (FIFO)", "a character device"…), or nil for a regular file.
    public static func nonRegularKind(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a named pipe (FIFO)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// The sentence for reading something that is `kind` (from `nonRegularKind`).
    public static func notRegularReason(_ kind: String) -> String {
        kind == "a directory" ? "it is a directory" : "it is \(kind), not a regular file"
    }

    /// Everything on standard input, at most `maxBytes` (default `maxFileBytes`), refused as soon as
    /// the stream passes that, having held at most `maxBytes + 1` bytes.
    /// - Parameter imagesOnly: refuse the stream as soon as its first `ImageFormat.sniffLength` bytes
    ///   are no image signature Lift knows (`lift - < /dev/zero` stops after one read instead of filling memory).
    /// - Throws: `ImageIOError.cannotRead` (path `<stdin>`), `.fileTooLarge`, `.unknownFormat`.
    public static func readStandardInput(maxBytes: Int = maxFileBytes, imagesOnly: Bool = false) throws(ImageIOError) -> [UInt8] {
        var status = stat()
        let isFile = fstat(STDIN_FILENO, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        if isFile, status.st_size > maxBytes { throw .fileTooLarge(path: "<stdin>", limit: maxBytes) }
        let check: (([UInt8]) throws(ImageIOError) -> Void)? = !imagesOnly ? nil : { prefix throws(ImageIOError) in
            guard ImageFormat.sniff(prefix) != nil else { throw .unknownFormat(leadingBytes: Array(prefix.prefix(8))) }
        }
        return try readAll(STDIN_FILENO, name: "<stdin>", expected: isFile ? Int(status.st_size) : 1 << 16, maxBytes: maxBytes,
                           checkPrefix: check)
    }

    /// Reads `descriptor` to its end, failing as soon as more than `maxBytes` arrive. The bytes go
    /// into chunks, the first with room for `expected` bytes (so a file of known size is read into
    /// one buffer, returned as it is), the next ones doubling up to `largestChunk`, none past
    /// `maxBytes + 1` in all: a stream that is refused never held more than that, and growing never
    /// copies what was read (a stream of several chunks is joined once, at its end). `checkPrefix`,
    /// when given, sees the first `ImageFormat.sniffLength` bytes (or all of a shorter stream) before reading goes on, and may throw.
    private static func readAll(_ descriptor: Int32, name: String, expected: Int, maxBytes: Int,
                                checkPrefix: (([UInt8]) throws(ImageIOError) -> Void)? = nil) throws(ImageIOError) -> [UInt8] {
        var chunks: [[UInt8]] = []
        var total = 0
        var size = checkPrefix == nil ? min(max(expected, 1), maxBytes) + 1 : min(ImageFormat.sniffLength, maxBytes + 1)
        while true {
            let (chunk, ended, failure) = readChunk(descriptor, size: size)
            if let failure { throw .cannotRead(path: name, reason: failure) }
            total += chunk.count
            if chunks.isEmpty, let checkPrefix { try checkPrefix(chunk) }
            chunks.append(chunk)
            guard total <= maxBytes else { throw .fileTooLarge(path: name, limit: maxBytes) }
            if ended { break }
            size = min(max(size * 2, min(expected, largestChunk), 1 << 16), largestChunk, maxBytes + 1 - total)
        }
        if chunks.count == 1 { return chunks[0] }
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            for index in chunks.indices {
                chunks[index].withUnsafeBufferPointer { chunk in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[count ..< count + chunk.count]).initialize(from: chunk)
                }
                count += chunks[index].count
                chunks[index] = []  // freed as soon as copied
            }
        }
    }

    /// The most bytes one chunk of `readAll` holds (64 MiB).
    private static let largestChunk = 64 << 20

    /// Up to `size` bytes from `descriptor`: fewer only at the end of the stream (`ended`) or on a
    /// read error (`failure`, the system's reason).
    private static func readChunk(_ descriptor: Int32, size: Int) -> (bytes: [UInt8], ended: Bool, failure: String?) {
        var ended = false
        var failure: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < buffer.count {
                let got = systemRead(descriptor, buffer.baseAddress.map { UnsafeMutableRawPointer($0 + count) }, buffer.count - count)
                if got < 0, errno == EINTR { continue }
                if got < 0 { failure = systemReason(); return }
                if got == 0 { ended = true; return }
                count += got
            }
        }
        return (bytes, ended, failure)
    }

    /// The system's sentence for the current `errno`.
    private static func systemReason() -> String { String(cString: strerror(errno)) }
}

/// The system's `read(2)` (inside `ImageIO`, `read` names `ImageIO.read(contentsOf:)`).
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
