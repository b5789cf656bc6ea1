import Lift
import LiftPipeline
import Testing

/// The option table is one list that every surface parses through.
@Suite struct CutoutOptionTableTests {
    @Test func namesAreUnique() {
        let keys = CutoutOption.table.map(\.key)
        #expect(Set(keys).count == keys.count)
        let shorts = CutoutOption.table.compactMap(\.short)
        #expect(Set(shorts).count == shorts.count)
        for option in CutoutOption.table { #expect(!option.help.isEmpty, "\(option.key)") }
    }

    /// An HTTP request's fields name options by their field names, and messages say them that way.
    @Test func messagesNameTheOptionAsTheSurfaceSpellsIt() {
        var given = ParsedArguments()
        given.values["margin"] = ["5%"]
        #expect(throws: UsageError.requiresOption("margin", requires: "crop")) {
            try CutoutRequest(parsing: given) { $0.name ?? $0.key }
        }
        #expect(throws: UsageError.requiresOption("--margin", requires: "--crop")) {
            try CutoutRequest(parsing: given) { "--" + $0.key }
        }
        given.flags.insert("crop")
        given.values["background"] = ["plaid"]
        #expect(throws: UsageError.invalidValue(option: "background", value: "plaid",
                                                expected: "transparent, a colour name (\(CutoutOption.cssBasicColorNames)), #RRGGBB, #RRGGBBAA, blur[:RADIUS] or dim[:LEVEL]")) {
            try CutoutRequest(parsing: given) { $0.name ?? $0.key }
        }
        given.values["background"] = ["white", "black"]
        #expect(throws: UsageError.repeatedOption("background")) { try CutoutRequest(parsing: given) { $0.name ?? $0.key } }
    }

    @Test func everyValueReachesTheRequest() throws {
        var given = ParsedArguments()
        given.values = ["model": ["person"], "quality": ["accurate"], "background": ["#102030"], "margin": ["12"], "max-size": ["300"],
                        "instances": ["2,1"], "instances-by": ["model"], "png-level": ["fast"], "threshold": ["0.25"], "decontaminate": ["off"]]
        given.flags = ["crop", "square", "no-refine"]
        let request = try CutoutRequest(parsing: given) { $0.key }
        var expected = CutoutRequest()
        expected.model = .person
        expected.quality = .accurate
        expected.background = .color(RGBAColor(r: 0x10, g: 0x20, b: 0x30))
        expected.crop = CropOption(margin: .pixels(12), square: true)
        expected.maxSize = 300
        expected.instances = .numbers([2, 1])
        expected.instancesBy = .model
        expected.outputs.pngCompression = .fast
        expected.threshold = 0.25
        expected.refine = false
        expected.decontaminate = false
        #expect(request == expected)
    }

    @Test(arguments: [("navy", RGBAColor(r: 0, g: 0, b: 128)), ("Teal", RGBAColor(r: 0, g: 128, b: 128)), ("aqua", RGBAColor(r: 0, g: 255, b: 255)),
                      ("silver", RGBAColor(r: 192, g: 192, b: 192)), ("white", .white)])
    func cssBasicColourNames(name: String, color: RGBAColor) throws {
        var given = ParsedArguments()
        given.values["background"] = [name]
        #expect(try CutoutRequest(parsing: given) { "--" + $0.key }.background == .color(color))
    }

    /// rembg's fields parse into the same request as Lift's: `bgc` is a colour, `om` the mask, `a` refinement.
    @Test func rembgsFieldsMeanWhatLiftsDo() throws {
        var rembg = ParsedArguments()
        rembg.values["bgc"] = ["255,0,0,128"]
        rembg.flags = ["only-mask", "a", "ppm"]
        rembg.values["af"] = ["240"]
        rembg.values["extras"] = ["{}"]
        let request = try CutoutRequest(parsing: rembg) { $0.rembg?.field ?? $0.key }
        var expected = CutoutRequest()
        expected.background = .color(RGBAColor(r: 255, g: 0, b: 0, a: 128))
        expected.outputs.image = .mask
        expected.refine = true
        #expect(request == expected)
        rembg.values["af"] = ["256"]
        #expect(throws: UsageError.invalidValue(option: "af", value: "256", expected: "a whole number from 0 to 255")) {
            try CutoutRequest(parsing: rembg) { $0.rembg?.field ?? $0.key }
        }
    }

}
