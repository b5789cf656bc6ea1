import Lift
import LiftPipeline
import Testing
import TestSupport

/// `CutoutPipeline.run` makes the same bytes as the library's own steps, for every kind of output.
@Suite struct CutoutPipelineTests {
    /// Two astronauts side by side, 512×256, decoded as a photo.
    private static func photo() throws -> DecodedPhoto { DecodedPhoto(image: try Fixtures.twoAstronauts(), color: PNGMetadata()) }

    private static let lifter = Result { try SubjectLifter(model: .person, quality: .balanced, threads: 2) }

    @Test func aCutoutIsTheLibrarysOwn() throws {
        let photo = try Self.photo(), lifter = try Self.lifter.get()
        var request = CutoutRequest()
        request.background = .white
        request.crop = CropOption(margin: .percent(5), square: true)
        request.instances = .largest
        request.outputs.mask = true
        request.outputs.labels = true
        var timings = StageTimings()
        let result = try CutoutPipeline.run(request, on: photo, with: lifter, name: "two", timings: &timings)

        let analysis = try lifter.analyze(photo.image)
        #expect(result.analysis.subjects.count == analysis.subjects.count && !analysis.subjects.isEmpty)
        let largest = [analysis.subjects[0]]
        #expect(result.kept.map(\.index) == [0])
        let rows = try analysis.imageRows(for: largest, croppedToExtent: true, background: .white, layout: request.outputLayout)
        let (width, height) = (rows.width, rows.height)
        let cutout = try ImageFiles.encodePNG(rows)
        let mask = try ImageFiles.encodeMaskPNG(of: analysis, for: largest)
        let labels = try ImageFiles.encodeLabelsPNG(of: analysis)
        let part = try #require(result.parts.first)
        let image = try #require(part.image)
        #expect(result.parts.count == 1 && part.subjectNumber == nil)
        #expect(image.bytes == cutout)
        #expect(image.width == width && image.height == height && width == height)
        #expect(part.mask?.bytes == mask)
        #expect(result.labels?.bytes == labels)
        #expect(timings.inference > 0 && timings.composite > 0 && timings.encode > 0)
    }

    @Test func eachSubjectHasItsOwnPart() throws {
        var request = CutoutRequest()
        request.outputs.eachSubject = true
        request.outputs.image = .mask
        var timings = StageTimings()
        let result = try CutoutPipeline.run(request, on: try Self.photo(), with: try Self.lifter.get(), name: "two", timings: &timings)
        #expect(!result.kept.isEmpty && result.parts.map(\.subjectNumber) == result.kept.map { $0.index + 1 })
        for (part, subject) in zip(result.parts, result.kept) {
            let mask = try ImageFiles.encodeMaskPNG(of: result.analysis, for: [subject])
            #expect(part.image?.bytes == mask)
            #expect(part.mask == nil)
        }
    }

    @Test func anAnalysisAloneChoosesNothing() throws {
        var request = CutoutRequest()
        request.outputs.image = nil
        request.point = PixelPoint(x: 0, y: 0)  // background: would be an error for an image
        var timings = StageTimings()
        let result = try CutoutPipeline.run(request, on: try Self.photo(), with: try Self.lifter.get(), name: "two", timings: &timings)
        #expect(result.parts.isEmpty && result.kept.isEmpty && !result.analysis.subjects.isEmpty)
        request.outputs.image = .cutout
        #expect(throws: CutoutError.noSubjectAt(x: 0, y: 0, subjectCount: result.analysis.subjects.count)) {
            try CutoutPipeline.run(request, on: try Self.photo(), with: try Self.lifter.get(), name: "two", timings: &timings)
        }
    }

    @Test func aPointOutsideThePhotoSaysSo() throws {
        var request = CutoutRequest()
        request.point = PixelPoint(x: 512, y: 10)
        var timings = StageTimings()
        #expect(throws: CutoutError.pointOutsidePhoto(x: 512, y: 10, width: 512, height: 256)) {
            try CutoutPipeline.run(request, on: try Self.photo(), with: try Self.lifter.get(), name: "two", timings: &timings)
        }
        #expect(CutoutError.pointOutsidePhoto(x: 512, y: 10, width: 512, height: 256).description
                == "512,10 is outside the photo, which is 512x256 pixels (X from 0 to 511, Y from 0 to 255)")
    }

    @Test func nothingToCropOrToWrite() throws {
        let grey = DecodedPhoto(image: RGBAImage(width: 64, height: 64, fill: (128, 128, 128, 255)), color: PNGMetadata())
        var request = CutoutRequest()
        request.crop = CropOption()
        var timings = StageTimings()
        #expect(throws: CutoutError.nothingToCrop) { try CutoutPipeline.run(request, on: grey, with: try Self.lifter.get(), name: "grey", timings: &timings) }
        request.crop = nil
        request.outputs.eachSubject = true
        #expect(throws: CutoutError.noSubjectToWrite) { try CutoutPipeline.run(request, on: grey, with: try Self.lifter.get(), name: "grey", timings: &timings) }
    }

    @Test func theRequestsAnalysisOptionsReachTheLifter() throws {
        var request = CutoutRequest()
        request.threshold = 0.3
        request.refine = false
        request.decontaminate = false
        request.instancesBy = .model
        let options = request.configure(try Self.lifter.get()).analysisOptions
        #expect(options.threshold == 0.3 && !options.refine && !options.decontaminate && options.instances == .model)
        #expect(CutoutRequest().configure(try Self.lifter.get()).analysisOptions.refine)
    }

    /// WebP is lossless: the same pixels as the PNG (RGB of fully transparent pixels zeroed); a JPEG
    /// is the JPEG encoder's file of the same composite at the asked quality; masks as JPEG are grey.
    @Test func webPAndJPEGOutputsHoldTheSameImage() throws {
        let photo = try Self.photo(), lifter = try Self.lifter.get()
        var request = CutoutRequest()
        var timings = StageTimings()
        let png = try #require(try CutoutPipeline.run(request, on: photo, with: lifter, name: "two", timings: &timings).parts.first?.image)
        request.outputs.format = .webp
        let webp = try #require(try CutoutPipeline.run(request, on: photo, with: lifter, name: "two", timings: &timings).parts.first?.image)
        #expect(ImageFormat.sniff(webp.bytes) == .webp && webp.width == png.width && webp.height == png.height)
        var expected = try ImageIO.decode(png.bytes)
        for i in 0 ..< expected.pixelCount where expected.pixels[i * 4 + 3] == 0 { expected.pixels.replaceSubrange(i * 4 ..< i * 4 + 3, with: [0, 0, 0]) }
        #expect(try ImageIO.decode(webp.bytes) == expected)

        request.background = .white
        request.outputs.format = .jpeg
        request.outputs.jpegQuality = 70
        request.outputs.mask = true
        request.outputs.maskFormat = .jpeg
        let result = try CutoutPipeline.run(request, on: photo, with: lifter, name: "two", timings: &timings)
        let jpeg = try #require(result.parts.first?.image), mask = try #require(result.parts.first?.mask)
        let analysis = try lifter.analyze(photo.image)
        let composite = try analysis.image(for: analysis.subjects, background: .white)
        #expect(jpeg.bytes == (try JPEGEncoder.encode(composite, options: JPEGEncoder.Options(quality: 70, threads: 2))))
        #expect(mask.bytes == (try JPEGEncoder.encode(try analysis.maskImage(for: analysis.subjects), options: JPEGEncoder.Options(quality: 70))))
    }

    @Test func formatsAreCheckedAgainstTheRequest() throws {
        var request = CutoutRequest()
        request.outputs.format = .jpeg
        let spelled: (CutoutOption) -> String = { "--" + $0.key }
        #expect(throws: UsageError.self) { try request.checkFormats(spelled: spelled, backgroundExample: "-b white") }
        request.background = .blurred(radius: nil)
        try request.checkFormats(spelled: spelled, backgroundExample: "-b white")
        request.background = .transparent
        request.outputs.image = .mask
        try request.checkFormats(spelled: spelled, backgroundExample: "-b white")
        request.outputs.format = .png
        request.outputs.jpegQuality = 50
        #expect(throws: UsageError.invalidOutput("'--output-quality' sets a JPEG's quality, but no JPEG is written (PNG and WebP are lossless)")) {
            try request.checkFormats(spelled: spelled, backgroundExample: "-b white")
        }
        request.outputs.mask = true
        request.outputs.maskFormat = .jpeg
        try request.checkFormats(spelled: spelled, backgroundExample: "-b white")
    }

    @Test(arguments: [("png", OutputFormat.png), ("WebP", .webp), ("jpg", .jpeg), ("JPEG", .jpeg)])
    func formatNames(name: String, format: OutputFormat) {
        #expect(OutputFormat(name: name) == format && OutputFormat(fileExtension: name) == format)
        #expect(OutputFormat(mediaType: format.mediaType + "; q=1") == format)
        #expect(OutputFormat(name: "gif") == nil && OutputFormat(fileExtension: "") == nil && OutputFormat(mediaType: "image/*") == nil)
    }

}
