import Foundation
import Lift
import LiftPipeline

/// What happened to one image, as written by `--json` and summarised in the log line.
public struct ImageReport: Sendable, Equatable, Codable {
    /// `ok`, `skipped` or `failed`.
    public enum Status: String, Sendable, Codable { case ok, skipped, failed }

    /// One subject found in the photo (numbered from 1 by decreasing area).
    public struct Instance: Sendable, Equatable, Codable {
        /// 1-based subject number (the value in the label map).
        public var number: Int
        /// Bounding box in photo pixels: `[x, y, width, height]`.
        public var bbox: [Int]
        /// Area in pixels.
        public var area: Int
        /// Mean foreground probability over the subject, 0…1.
        public var score: Double
        /// Whether the subject is in the written image (or, with `--each`, written to its own).
        public var kept: Bool
        /// With `--each`: the subject's own cut-out file.
        public var output: String?
        /// With `--each` and `--mask`: the subject's own mask file.
        public var mask: String?
        /// With `--each`: the width of the subject's cut-out in pixels.
        public var outputWidth: Int?
        /// With `--each`: the height of the subject's cut-out in pixels.
        public var outputHeight: Int?

        /// An instance entry.
        public init(number: Int, bbox: [Int], area: Int, score: Double, kept: Bool) {
            self.number = number
            self.bbox = bbox
            self.area = area
            self.score = score
            self.kept = kept
        }

        /// The entry of the subject `record` describes.
        public init(_ record: SubjectRecord, kept: Bool) {
            self.init(number: record.number, bbox: record.bbox, area: record.area, score: record.score, kept: kept)
        }
    }

    /// The input path or `<stdin>`.
    public var input: String
    /// The outcome.
    public var status: Status
    /// The cut-out's path (`-` for standard output), when written or skipped; with `--each` each
    /// instance names its own file instead (a skipped image names the first that exists).
    public var output: String?
    /// The mask's path, when written.
    public var mask: String?
    /// The label map's path, when written.
    public var labels: String?
    /// For an input skipped because it is the same file as an earlier one: that input as named.
    public var sameFileAs: String?
    /// Why the image failed, in words.
    public var error: String?
    /// Photo width in pixels.
    public var width: Int?
    /// Photo height in pixels.
    public var height: Int?
    /// Written image width in pixels (after crop and `--max-size`).
    public var outputWidth: Int?
    /// Written image height in pixels.
    public var outputHeight: Int?
    /// The model that ran.
    public var model: String?
    /// The quality level.
    public var quality: String?
    /// Where the subjects came from: `components` (the mask's connected components) or `model` (the
    /// model's instance heads).
    public var instancesBy: String?
    /// Subjects found.
    public var instances: [Instance]?
    /// Milliseconds per stage.
    public var timings: StageTimings?

    /// A report for `input` with only the status filled in.
    public init(input: String, status: Status) {
        self.input = input
        self.status = status
    }

    /// The one-line log form: `photo.jpg -> photo.cutout.png (2 subjects, 1024x768, 412 ms)`; names
    /// and the error are escaped (`TerminalText`), so the line is one line of plain text.
    public var logLine: String {
        let input = TerminalText.escaped(input), output = output.map(TerminalText.escaped)
        switch status {
        case .failed: return "\(input): \(TerminalText.escaped(error ?? "failed"))"
        case .skipped:
            if let sameFileAs {
                return "\(input): skipped, " + (sameFileAs == self.input ? "already in this run" : "the same file as \(TerminalText.escaped(sameFileAs))")
            }
            return "\(input): skipped, \(output ?? "output") exists"
        case .ok:
            var details: [String] = []
            if let instances {
                let kept = instances.filter(\.kept).count
                details.append(kept == instances.count ? "\(kept) subject\(kept == 1 ? "" : "s")"
                                                       : "\(kept) of \(instances.count) subjects")
            }
            if let outputWidth, let outputHeight { details.append("\(outputWidth)x\(outputHeight)") }
            if let timings { details.append("\(Int(timings.total.rounded())) ms") }
            let suffix = details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")"
            return "\(input) -> \(output ?? TerminalText.escaped(subjectFiles))\(suffix)"
        }
    }
}

extension ImageReport {
    /// The files `--each` wrote, for the log line: all of them, or the first and last of more than three.
    var subjectFiles: String {
        let files = (instances ?? []).compactMap(\.output)
        guard let first = files.first, let last = files.last else { return "-" }
        return files.count <= 3 ? files.joined(separator: ", ") : "\(first) ... \(last)"
    }
}

/// The document `--json` writes: the version, the options that shape results, and one entry per image.
public struct BatchReport: Sendable, Equatable, Codable {
    /// `lift` version.
    public var lift: String
    /// Per-image reports in input order.
    public var images: [ImageReport]
    /// Counts of ok / failed / skipped images.
    public var summary: BatchSummary

    /// A report document.
    public init(images: [ImageReport], summary: BatchSummary) {
        self.lift = LiftVersion.string
        self.images = images
        self.summary = summary
    }

    /// The document as pretty-printed JSON with sorted keys (stable for tests and diffs), newline-terminated.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(self)) + [0x0A]
    }
}
