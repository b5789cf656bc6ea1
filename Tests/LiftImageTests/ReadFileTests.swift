import Foundation
import LiftImage
import TestSupport
import Testing

/// `ImageIO.readFile`: whole files up to a cap, the cap checked before and while reading, and the
/// system's reason in the error.
@Suite struct ReadFileTests {
    @Test func readsWholeFilesUpToTheCap() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/hundred.bin"
        let bytes = (0 ..< 100).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try ImageIO.readFile(path) == bytes)
        #expect(try ImageIO.readFile(path, maxBytes: 100) == bytes)
        #expect(throws: ImageIOError.fileTooLarge(path: path, limit: 99)) { try ImageIO.readFile(path, maxBytes: 99) }
        #expect(ImageIOError.fileTooLarge(path: path, limit: 99).description
            == "cannot read \(path): it is larger than 99 bytes, the most read into memory")
    }

    @Test func capsFilesOfUnknownSizeWhileReading() throws {
        // procfs reports a size of 0: the reader grows its buffer and checks the cap as bytes arrive.
        let path = "/proc/self/status"
        #expect(try ImageIO.readFile(path).count > 64)
        #expect(throws: ImageIOError.fileTooLarge(path: path, limit: 64)) { try ImageIO.readFile(path, maxBytes: 64) }
    }

    @Test func pipesAndDevicesAreRefusedWithoutBeingRead() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(mkfifo(scratch.path("p.png"), 0o644) == 0)
        // No writer ever opens the pipe: a blocking open would wait forever.
        #expect(throws: ImageIOError.cannotRead(path: scratch.path("p.png"), reason: "it is a named pipe (FIFO), not a regular file")) {
            try ImageIO.readFile(scratch.path("p.png"))
        }
        #expect(throws: ImageIOError.cannotRead(path: "/dev/zero", reason: "it is a character device, not a regular file")) {
            try ImageIO.readFile("/dev/zero")
        }
    }

    @Test func streamsArriveWholeAcrossChunksAndAreRefusedPastTheCap() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = scratch.path + "/list"
        signal(SIGPIPE, SIG_IGN)  // the writer of the refused stream finds its reader gone
        // 300 kB through a pipe: read in growing chunks (64 KiB, 128 KiB, …) and joined once.
        let bytes = (0 ..< 300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        for (cap, expected) in [(1 << 20, bytes as [UInt8]?), (100_000, nil)] {
            #expect(mkfifo(fifo, 0o600) == 0)
            defer { unlink(fifo) }
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            writer.start()
            if let expected {
                #expect(try ImageIO.readFile(fifo, maxBytes: cap, allowPipes: true) == expected)
            } else {
                #expect(throws: ImageIOError.fileTooLarge(path: fifo, limit: cap)) { try ImageIO.readFile(fifo, maxBytes: cap, allowPipes: true) }
            }
        }
    }

    @Test func errorsCarryTheSystemReason() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let missing = scratch.path + "/missing.png"
        #expect(throws: ImageIOError.cannotRead(path: missing, reason: "No such file or directory")) { try ImageIO.readFile(missing) }
        #expect(throws: ImageIOError.cannotRead(path: scratch.path, reason: "it is a directory")) { try ImageIO.readFile(scratch.path) }
    }
}
