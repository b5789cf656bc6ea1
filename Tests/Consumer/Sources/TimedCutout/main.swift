// `TimedCutout PHOTO OUTPUT_DIRECTORY RUNS`: the subject model loaded once, then the photo analysed,
// cut out on white with a 5 % margin and written RUNS times; prints the best time in milliseconds.
// Measures what a package depending on Lift by version gets (Tests/Consumer/run.sh --measure).
import Foundation
import Lift

let arguments = CommandLine.arguments
guard arguments.count == 4, let runs = Int(arguments[3]), runs > 0 else {
    FileHandle.standardError.write(Data("usage: TimedCutout PHOTO OUTPUT_DIRECTORY RUNS\n".utf8))
    exit(2)
}
let lifter = try SubjectLifter(model: .subject)
let photo = try ImageFiles.load(arguments[1])
var best = Double.infinity
for _ in 0 ..< runs {
    let start = Date()
    let analysis = try lifter.analyze(photo)
    let cutout = try analysis.image(for: analysis.subjects, croppedToExtent: true, background: .white,
                                    layout: OutputLayout(margin: .percent(5)))
    try ImageFiles.savePNG(cutout, to: arguments[2] + "/cutout.png")
    best = min(best, Date().timeIntervalSince(start))
}
print(String(format: "%.1f", best * 1000))
