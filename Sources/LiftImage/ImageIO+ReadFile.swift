import Foundation

extension ImageIO {
    /// Largest file or standard-input stream read into memory (1 GiB); decoders apply their own
    /// pixel limits (`DecodingLimits`) on top.
    public static let maxFileBytes = 1 << 30

    /// The whole contents of the file at `path`.
    /// - Parameter maxBytes: the largest file accepted (default `maxFileBytes`); checked against the
    ///   file's size before reading, and again while reading files whose size the system does not know.
    /// - Throws: `ImageIOError.cannotRead` with the system's reason ("No such file or directory",
    ///   "Permission denied", "it is a directory"…), `.fileTooLarge` past `maxBytes`.
    public static func readFile(_ path: String, maxBytes: Int = maxFileBytes) throws(ImageIOError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotRead(path: path, reason: systemReason()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .cannotRead(path: path, reason: systemReason()) }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw .cannotRead(path: path, reason: "it is a directory") }
        guard status.st_size <= maxBytes else { throw .fileTooLarge(path: path, limit: maxBytes) }
        return try readAll(descriptor, name: path, expected: Int(status.st_size), maxBytes: maxBytes)
    }

    /// Everything on standard input, at most `maxBytes` (default `maxFileBytes`).
    /// - Throws: `ImageIOError.cannotRead` (path `<stdin>`) or `.fileTooLarge`.
    public static func readStandardInput(maxBytes: Int = maxFileBytes) throws(ImageIOError) -> [UInt8] {
        try readAll(STDIN_FILENO, name: "<stdin>", expected: 1 << 16, maxBytes: maxBytes)
    }

    /// Reads `descriptor` to its end, starting with room for `expected` bytes and growing the buffer
    /// as needed, failing as soon as more than `maxBytes` arrive.
    private static func readAll(_ descriptor: Int32, name: String, expected: Int, maxBytes: Int) throws(ImageIOError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: min(max(expected, 1), maxBytes) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= maxBytes else { throw .fileTooLarge(path: name, limit: maxBytes) }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, maxBytes + 1 - count)))
            }
            let got = bytes.withUnsafeMutableBytes { raw in
                systemRead(descriptor, raw.baseAddress.map { $0 + count }, raw.count - count)
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .cannotRead(path: name, reason: systemReason()) }
            if got == 0 { break }
            count += got
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// The system's sentence for the current `errno`.
    private static func systemReason() -> String { String(cString: strerror(errno)) }
}

/// The system's `read(2)` (inside `ImageIO`, `read` names `ImageIO.read(contentsOf:)`).
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
