import Foundation
import Lift
import LiftParallel
import LiftPipeline
import Synchronization

/// `lift b WIDTH HEIGHT [-o PATTERN] [rembg flags]`: rembg's `b` verb, raw RGB24 frames of WIDTH×HEIGHT
/// on standard input (as `ffmpeg -f rawvideo -pix_fmt rgb24 pipe:1` writes them), each cut out and
/// written to `PATTERN` formatted with the frame's number from 0 (`out-%05d.png`, printf's `%d`/`%u`
/// with an optional zero-padded width), or without `-o` as consecutive images on standard output.
/// The model is loaded once; frames are cut out as many at a time as there are cores, one thread
/// each, and written in order.
public enum RembgStreamCommand: Subcommand {
    public static let name = "b"

    public static func run(_ arguments: [String], environment: CommandEnvironment) -> Int32 {
        let width: Int, height: Int, pattern: FramePattern?, request: CutoutRequest
        do throws(UsageError) {
            let parser = RembgArguments(own: [RembgArguments.Flag(short: "-o", long: "--output_specifier", key: "output", words: 1)])
            let parsed = try parser.parse(arguments)
            if parsed.flag("help") { return environment.printHelp(help(parser)) }
            guard parsed.positionals.count == 2 else { throw .invalidOutput("expected WIDTH and HEIGHT, got \(parsed.positionals.count) arguments") }
            width = try CutoutOption.parseCount(parsed.positionals[0], option: "WIDTH")
            height = try CutoutOption.parseCount(parsed.positionals[1], option: "HEIGHT")
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            let limit = DecodingLimits.default.maxPixels
            guard !overflow, pixels <= limit, width <= JPEGEncoder.maximumDimension, height <= JPEGEncoder.maximumDimension else {
                throw .invalidOutput("a \(width)x\(height) frame is over the limit of \(limit) pixels")
            }
            pattern = try parsed.value("output").map(FramePattern.init(parsing:))
            var options = CutoutOptions(inputs: ["-"])
            options.output = pattern.map { .path($0.format(0)) }
            options.request = try CutoutRequest(parsing: parsed, spelled: RembgFileCommand.spelled)
            try CutoutCommand.chooseFormats(&options, formatGiven: false, spelled: RembgFileCommand.spelled, backgroundExample: "-bgc 255 255 255 255")
            request = options.request
            if pattern == nil, environment.standardOutputIsTerminal {
                throw .invalidOutput("refusing to write images to the terminal; redirect standard output or use -o PATTERN")
            }
        } catch {
            return environment.usageFailure(name, error.description)
        }
        if let model = request.model {
            do throws(UsageError) { try CutoutAction.checkModelExists(model) } catch { return environment.usageFailure(name, error.description) }
        }
        do {
            let lifter = try SubjectLifter(model: request.model, quality: request.quality, threads: 1)
            var stream = FrameStream(width: width, height: height)
            var frameNumber = 0
            let window = max(1, Parallel.defaultThreads)
            while true {
                let frames = try stream.read(upTo: window)
                if frames.isEmpty { break }
                let results = Mutex([Int: Result<[UInt8], any Error>]())
                Parallel.forEach(count: frames.count, threads: frames.count) { range in
                    for index in range {
                        let result = Result { () throws -> [UInt8] in
                            var timings = StageTimings()
                            let photo = DecodedPhoto(image: frames[index], color: PNGMetadata())
                            let cutout = try CutoutPipeline.run(request, on: photo, with: lifter, name: "frame \(frameNumber + index)", timings: &timings)
                            guard let image = cutout.parts.first?.image else { preconditionFailure("a cut-out request makes an image") }
                            return image.bytes
                        }
                        results.withLock { $0[index] = result }
                    }
                }
                for index in frames.indices {
                    guard let result = results.withLock({ $0[index] }) else { preconditionFailure("frame \(index) was not processed") }
                    let bytes = try result.get()
                    if let pattern {
                        try ImageFiles.write(bytes, to: pattern.format(frameNumber), overwrite: true)
                    } else {
                        try environment.writeStandardOutput(bytes)
                    }
                    frameNumber += 1
                }
            }
            return 0
        } catch let error as StandardStream.WriteError where error.isBrokenPipe {
            return 0
        } catch {
            return environment.failure(name, error)
        }
    }

    /// `lift b --help`.
    static func help(_ parser: RembgArguments) -> String {
        parser.help(usage: "lift b WIDTH HEIGHT [-o PATTERN] [options]",
                    summary: ["rembg's 'b': raw RGB24 frames of WIDTH x HEIGHT on standard input (ffmpeg -an -f rawvideo -pix_fmt rgb24 pipe:1),",
                              "each cut out and written to PATTERN with its number from 0 (printf's %d or %u, zero-padded as %05d),",
                              "or without -o one after another to standard output. Frames are cut out on every core, written in order."],
                    exitStatus: "0 every frame done   1 a frame failed or standard input ended inside one   2 usage error")
    }
}

/// A printf-style file name pattern with one integer conversion: `%d`, `%u` or `%i`, optionally with a
/// zero-padded width (`%05d`); `%%` is a percent sign.
struct FramePattern: Equatable {
    /// Text before and after the conversion.
    let prefix: String, suffix: String
    /// The minimum number of digits, padded with zeros (0: none).
    let width: Int

    /// The pattern of `text`.
    /// - Throws: `UsageError.invalidValue` unless the text holds exactly one integer conversion.
    init(parsing text: String) throws(UsageError) {
        let invalid = UsageError.invalidValue(option: "-o", value: text, expected: "a file name with one %d, %u or %05d for the frame's number, such as out-%05d.png")
        var parts: [String] = [""], widths: [Int] = []
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            guard character == "%" else { parts[parts.count - 1].append(character); continue }
            if characters.first == "%" { characters.removeFirst(); parts[parts.count - 1].append("%"); continue }
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            characters.removeFirst(digits.count)
            guard let conversion = characters.popFirst(), "dui".contains(conversion), digits.count <= 2 else { throw invalid }
            widths.append(Int(String(digits)) ?? 0)
            parts.append("")
        }
        guard widths.count == 1 else { throw invalid }
        prefix = parts[0]
        suffix = parts[1]
        width = widths[0]
    }

    /// The file name of frame `number`.
    func format(_ number: Int) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, width - digits.count)) + digits + suffix
    }
}

/// Frames of raw RGB24 read from standard input, exactly `width * height * 3` bytes each.
struct FrameStream {
    let width: Int, height: Int

    /// Why the stream cannot be read.
    enum ReadError: Error, CustomStringConvertible {
        case endedInsideFrame(frame: Int, received: Int, expected: Int)
        case readFailed(reason: String)

        var description: String {
            switch self {
            case .endedInsideFrame(let frame, let received, let expected):
                "standard input ended inside frame \(frame): \(received) of its \(expected) bytes (are WIDTH and HEIGHT the stream's?)"
            case .readFailed(let reason): "cannot read standard input: \(reason)"
            }
        }
    }

    /// Frames read so far, to number the one a short read ends in.
    private var framesRead = 0
    /// Why the stream stopped early, once the frames before it have been returned.
    private(set) var pendingError: ReadError?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Up to `count` whole frames as opaque RGBA images; fewer only at the end of the stream, or
    /// when it ended inside a frame or could not be read (`pendingError` then says why, and the
    /// next read throws it).
    mutating func read(upTo count: Int) throws(ReadError) -> [RGBAImage] {
        if let pendingError { throw pendingError }
        var frames: [RGBAImage] = []
        let frameBytes = width * height * 3
        var rgb = [UInt8](repeating: 0, count: frameBytes)
        while frames.count < count {
            var received = 0
            while received < frameBytes {
                let got = rgb.withUnsafeMutableBytes { buffer in
                    buffer.baseAddress.map { Glibc.read(0, $0 + received, frameBytes - received) } ?? 0
                }
                if got < 0 {
                    if errno == EINTR { continue }
                    pendingError = .readFailed(reason: String(cString: strerror(errno)))
                    break
                }
                if got == 0 { break }
                received += got
            }
            if pendingError != nil || received == 0 { break }
            guard received == frameBytes else {
                pendingError = .endedInsideFrame(frame: framesRead, received: received, expected: frameBytes)
                break
            }
            framesRead += 1
            var rgba = [UInt8](repeating: 255, count: width * height * 4)
            rgb.withUnsafeBufferPointer { source in
                rgba.withUnsafeMutableBufferPointer { target in
                    for pixel in 0 ..< width &* height {
                        target[pixel &* 4] = source[pixel &* 3]
                        target[pixel &* 4 &+ 1] = source[pixel &* 3 &+ 1]
                        target[pixel &* 4 &+ 2] = source[pixel &* 3 &+ 2]
                    }
                }
            }
            frames.append(RGBAImage(width: width, height: height, pixels: rgba))
        }
        if frames.isEmpty, let pendingError { throw pendingError }
        return frames
    }
}
