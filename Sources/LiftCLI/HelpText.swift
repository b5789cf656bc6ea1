import Lift

/// The text `lift --help` prints (snapshot-tested in `Tests/LiftCLITests`).
public enum HelpText {
    /// The full help: usage, subcommands, options in groups, examples, exit codes.
    public static var full: String {
        var lines = [
            "lift \(LiftVersion.string): lift subjects out of photos (background removal), offline.",
            "",
            "USAGE",
            "  lift INPUT... [-o OUTPUT] [options]   cut out the subjects of photos (PNG, JPEG, WebP, GIF)",
            "  lift convert INPUT OUTPUT.png         decode any supported image and write it as PNG",
            "  lift info FILE                        print an image file's format, size and metadata",
            "  lift import MODEL.onnx -o M.safetensors  convert an ONNX model (rembg's) into a Lift model file",
            "  lift serve [--port N] [--token T]     the HTTP API and web page (http://127.0.0.1:7000/)",
            "  lift i | p [-w] | b | s  [rembg flags]  rembg's verbs with rembg's flags (docs/rembg.md)",
            "                                        (each sub-command has its own --help)",
            "",
            "  INPUT is a file, a directory (its PNG, JPEG, WebP and GIF files; -r descends) or '-' for standard input.",
            "  Each cut-out is written as <name>.cutout.png next to its input unless -o says otherwise",
            "  (-o NAME.webp or NAME.jpg, or --format, picks lossless WebP or JPEG);",
            "  inputs are never overwritten; existing outputs only with --force, or with --skip-existing when",
            "  an input is run again because some of its outputs are missing (and the --json report).",
            "",
        ]
        for (title, names) in optionGroups {
            lines.append(title)
            for name in names {
                guard let spec = CutoutCommand.optionSpecs.first(where: { $0.long == name }) else {
                    preconditionFailure("help lists unknown option \(name)")
                }
                lines.append(optionLine(spec))
            }
            lines.append("")
        }
        lines += [
            "EXAMPLES",
            "  lift photo.jpg                          writes photo.cutout.png",
            "  lift -r shots/ -o cutouts/ --skip-existing",
            "                                          a resumable batch over a directory tree",
            "  lift item.jpg --background white --crop --margin 5% --square -o item.png",
            "                                          a white, square product shot",
            "  lift item.jpg -b white --crop --square -o listing.jpg",
            "                                          the same as a JPEG (quality 90; --output-quality N)",
            "  lift group.jpg --at 420,310 --crop      only the subject under pixel 420,310",
            "  lift --model isnet-general-use photo.jpg",
            "                                          rembg's ISNet from ~/.u2net (U2NET_HOME), offline",
            "  lift flatlay.jpg --each --crop -b white",
            "                                          each subject on white, cropped, in its own file",
            "  lift photo.jpg --mask photo.mask.png --json -",
            "                                          also the grey mask, and a JSON report on stdout",
            "  cat photo.jpg | lift - > cutout.png     standard input to standard output",
            "  lift --files-from all.txt --shard 3/8 -o out/ --skip-existing --json-lines",
            "                                          part 3 of 8 of a listed batch, a JSON line per image",
            "",
            "EXIT STATUS",
            "  0 every input done   1 some inputs failed (each printed with its reason)   2 usage error",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A short pointer printed after a usage error.
    public static let hint = "Run 'lift --help' for usage and examples."

    /// Option groups in display order: a title and the long names of its options.
    public static let optionGroups: [(title: String, options: [String])] = [
        ("OUTPUT", ["output", "recursive", "force", "skip-existing", "mask", "only-mask", "labels", "json", "format", "output-quality", "png-level"]),
        ("MODEL", ["model", "quality", "threshold", "no-refine", "decontaminate", "threads", "max-pixels", "max-memory"]),
        ("SUBJECTS", ["instances", "instances-by", "at", "each"]),
        ("LOOK", ["background", "crop", "margin", "square", "max-size"]),
        ("BATCHES ACROSS MACHINES", ["files-from", "null", "shard", "json-lines"]),
        ("GENERAL", ["quiet", "help", "version"]),
    ]

    /// The help of a sub-command: its usage line, what it does, its options, its exit codes.
    public static func subcommand(usage: String, summary: [String], options: [OptionSpec],
                                  exitStatus: String = "0 done   1 the input could not be read or decoded, or the output not written   2 usage error") -> String {
        var lines = ["USAGE", "  \(usage)", ""] + summary.map { "  " + $0 } + ["", "OPTIONS"]
        lines += options.map(optionLine)
        lines += ["", "EXIT STATUS", "  " + exitStatus]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `text` (help or version) through `write`; returns the exit status: 0 when it was
    /// written or its reader went away (`lift --help | head`), 1 after saying why on `report` when
    /// it could not be (`lift --help > /dev/full`).
    public static func emit(_ text: String, write: ([UInt8]) throws -> Void, report: (String) -> Void) -> Int32 {
        do {
            try write(Array(text.utf8))
            return 0
        } catch let error as StandardStream.WriteError where error.isBrokenPipe {
            return 0
        } catch {
            report("lift: \(error)\n")
            return 1
        }
    }

    /// `  -o, --output PATH        help`, aligned.
    static func optionLine(_ spec: OptionSpec) -> String {
        let short = spec.short.map { "-\($0), " } ?? "    "
        let name = "--\(spec.long)" + (spec.valueName.map { " \($0)" } ?? "")
        let left = "  " + short + name
        let column = 30
        return left.count < column ? left + String(repeating: " ", count: column - left.count) + spec.help
                                   : left + "\n" + String(repeating: " ", count: column) + spec.help
    }
}
