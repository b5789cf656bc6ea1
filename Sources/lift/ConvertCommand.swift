import Foundation
import Lift
import LiftCLI

/// `lift convert [--fast] [--level N] [--keep-layout] [--force] INPUT OUTPUT.png`: decodes any image Lift
/// can read and writes it as PNG atomically. PNG inputs keep their 16-bit samples and metadata chunks;
/// JPEG inputs keep their ICC profile (as iCCP, when it is an RGB or grey profile that fits the output).
/// INPUT `-` is standard input, OUTPUT `-` standard output. The input is never overwritten; an existing
/// output only with `--force`. Returns 0 on success, 1 when reading, decoding or writing fails, 2 for a
/// usage error; on failure no output file is left behind.
func runConvert(_ arguments: [String]) -> Int32 {
    var options = PNGEncoder.Options(reduceColorType: true)
    var paths: [String] = []
    var force = false
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        switch argument {
        case "--fast":
            options = .fast
        case "--force", "-f":
            force = true
        case "--keep-layout":
            options.reduceColorType = false
        case "--level":
            guard let value = rest.popFirst().flatMap({ Int($0) }), (0...9).contains(value) else {
                return usageFailure("convert", "--level needs a number from 0 to 9")
            }
            options.level = value
        default:
            if argument.hasPrefix("-") && argument.count > 1 { return usageFailure("convert", "unknown option \(argument)") }
            paths.append(argument)
        }
    }
    guard paths.count == 2 else { return usageFailure("convert", "expected INPUT and OUTPUT.png") }
    let (input, output) = (paths[0], paths[1])
    let outputExtension = URL(fileURLWithPath: output).pathExtension.lowercased()
    if output != "-", !outputExtension.isEmpty, outputExtension != "png" {
        return usageFailure("convert", "\(output): convert writes PNG only; name the output .png")
    }
    if input != "-", output != "-", URL(fileURLWithPath: input).standardizedFileURL.resolvingSymlinksInPath()
        == URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath() {
        return usageFailure("convert", "\(output) is the input; Lift never overwrites an input")
    }
    if output != "-", !force, FileManager.default.fileExists(atPath: output) {
        return usageFailure("convert", "\(output) exists; add --force to replace it")
    }
    do {
        let bytes = try readInput(input)
        let png: [UInt8]
        if ImageFormat.sniff(bytes) == .png {
            let info = try PNGDecoder.readInfo(bytes)
            options.metadata = info.metadata
            if info.header.bitDepth == 16 {
                png = try PNGEncoder.encode(PNGSamples(try PNGDecoder.decode16(bytes).image), options: options)
            } else {
                png = try PNGEncoder.encode(try PNGDecoder.decode(bytes).image, options: options)
            }
        } else {
            let photo = try ImageIO.decodePhoto(bytes)
            options.metadata = photo.color
            png = try PNGEncoder.encode(photo.image, options: options)
        }
        if output == "-" {
            try StandardStream.write(png, to: STDOUT_FILENO)
        } else {
            try AtomicFile.write(png, to: output)
        }
        return 0
    } catch let error as AtomicFile.WriteError {
        return commandFailure("convert", error)
    } catch let error as StandardStream.WriteError {
        return commandFailure("convert", error)
    } catch {
        return commandFailure("convert", error, path: input)
    }
}
