import Foundation
import Lift
import LiftCLI
import Testing

/// Collects what a reporter writes.
private final class TextCollector: @unchecked Sendable {
    var text = ""
    func write(_ piece: String) { text += piece }
}

private struct Broken: Error, CustomStringConvertible {
    var description: String { "not a PNG or JPEG file" }
}

private let entries: [PlanEntry] = [
    .process(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.png"))),
    .fail("missing.jpg", .inputNotFound),
    .process(ImageJob(input: .file("bad.jpg"), output: .path("bad.cutout.png"))),
    .skip(.file("old.jpg"), output: "old.cutout.png"),
    .duplicate("./a.jpg", of: "a.jpg"),
    .duplicate("a.jpg", of: "a.jpg"),
    .process(ImageJob(input: .file("c.png"), output: .path("c.cutout.png"))),
]

/// A stand-in for the model: fails on `bad.jpg`, reports one subject otherwise.
private func fakeProcess(_ job: ImageJob) throws -> ImageReport {
    if job.input == .file("bad.jpg") { throw Broken() }
    var report = ImageReport(input: job.input.displayName, status: .ok)
    if case .path(let path) = job.output { report.output = path }
    report.instances = [ImageReport.Instance(number: 1, bbox: [1, 2, 3, 4], area: 12, score: 0.9, kept: true)]
    report.outputWidth = 8
    report.outputHeight = 6
    return report
}

@Test func batchGoesOnAfterFailuresAndCountsEveryOutcome() {
    let log = TextCollector()
    let (summary, reports) = BatchRunner(reporter: LogLineReporter(quiet: false, write: log.write), keepReports: true)
        .run(entries, process: fakeProcess)
    var expected = BatchSummary()
    expected.succeeded = 2
    expected.failed = 2
    expected.skipped = 3
    #expect(summary == expected)
    #expect(summary.exitCode == 1)
    #expect(reports.map(\.status) == [.ok, .failed, .failed, .skipped, .skipped, .skipped, .ok])
    #expect(reports[4].sameFileAs == "a.jpg")
    #expect(reports[2].error == "not a PNG or JPEG file")
    #expect(log.text == """
        a.jpg -> a.cutout.png (1 subject, 8x6)
        lift: missing.jpg: no such file or directory
        lift: bad.jpg: not a PNG or JPEG file
        old.jpg: skipped, old.cutout.png exists
        ./a.jpg: skipped, the same file as a.jpg
        a.jpg: skipped, already in this run
        c.png -> c.cutout.png (1 subject, 8x6)
        2 written, 2 failed, 3 skipped

        """)
}

@Test func quietPrintsOnlyFailures() {
    let log = TextCollector()
    let (_, reports) = BatchRunner(reporter: LogLineReporter(quiet: true, write: log.write), keepReports: false)
        .run(entries, process: fakeProcess)
    #expect(reports.isEmpty)
    #expect(log.text == "lift: missing.jpg: no such file or directory\nlift: bad.jpg: not a PNG or JPEG file\n")
}

@Test func successfulBatchExitsZero() {
    let (summary, _) = BatchRunner(reporter: LogLineReporter(quiet: true, write: { _ in }), keepReports: false)
        .run([entries[0], entries[3]], process: fakeProcess)
    #expect(summary.exitCode == 0)
}

@Test func progressBarRedrawsInPlaceAndPrintsFailuresAboveIt() {
    let screen = TextCollector()
    var clock = 0.0
    let reporter = ProgressBarReporter(width: 60, now: { clock += 1; return clock }, write: screen.write)
    _ = BatchRunner(reporter: reporter, keepReports: false).run(Array(entries.prefix(3)), process: fakeProcess)
    let frames = screen.text.components(separatedBy: ProgressBar.clearLine).filter { !$0.isEmpty }
    #expect(frames.count == 5)  // begin, three images, end
    #expect(frames[0].hasSuffix("0/3"))
    #expect(frames[2].hasPrefix("lift: missing.jpg: no such file or directory\n["))
    #expect(frames[4] == "1 written, 2 failed in 4.0 s\n")
    #expect(!screen.text.contains("a.jpg ->"))
}

@Test func progressBarShowsCountRateAndETA() {
    #expect(ProgressBar.render(done: 0, total: 10, elapsed: 0, width: 40) == "[" + String(repeating: ".", count: 30) + "]   0/10")
    let half = ProgressBar.render(done: 5, total: 10, elapsed: 2, width: 80)
    #expect(half.hasPrefix("[" + String(repeating: "#", count: 20) + String(repeating: ".", count: 20) + "]"))
    #expect(half.hasSuffix("   5/10  2.5 img/s  ETA 0:02"))
    #expect(ProgressBar.render(done: 10, total: 10, elapsed: 0.5, width: 80).hasSuffix("10/10  20 img/s"))
    #expect(ProgressBar.duration(59.2) == "1:00")
    #expect(ProgressBar.duration(3725) == "1:02:05")
}

@Test func jsonReportIsStableAndCarriesInstancesAndTimings() throws {
    var report = try fakeProcess(ImageJob(input: .file("a.jpg"), output: .path("a.cutout.png")))
    report.width = 640
    report.height = 480
    report.model = "person"
    var timings = StageTimings()
    timings.inference = 3.5
    report.timings = timings
    var summary = BatchSummary()
    summary.succeeded = 1
    let bytes = try BatchReport(images: [report], summary: summary).encoded()
    let decoded = try JSONDecoder().decode(BatchReport.self, from: Data(bytes))
    #expect(decoded.images == [report])
    #expect(decoded.lift == LiftVersion.string)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("\"inference\" : 3.5"))
    #expect(text.hasSuffix("}\n"))
}
