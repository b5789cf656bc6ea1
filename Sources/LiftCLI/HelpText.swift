import Lift

/// The text `lift --help` prints (snapshot-tested in `Tests/LiftCLITests`).
public enum HelpText {
    /// The full help: usage, subcommands, options in groups, examples, exit codes.
    public static var full: String {
        var lines = [
            "lift \(LiftVersion.string): lift subjects out of photos (background removal), offline.",
            "",
            "USAGE",
            "  lift INPUT... [-o OUTPUT] [options]   cut out the subjects of PNG/JPEG photos",
            "  lift convert INPUT OUTPUT.png         decode any supported image and write it as PNG",
            "  lift info FILE                        print an image file's format, size and metadata",
            "",
            "  INPUT is a file, a directory (its PNG/JPEG files; -r descends) or '-' for standard input.",
            "  Each cut-out is written as <name>.cutout.png next to its input unless -o says otherwise;",
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
            "  lift group.jpg --at 420,310 --crop      only the subject under pixel 420,310",
            "  lift flatlay.jpg --each --crop -b white",
            "                                          each subject on white, cropped, in its own file",
            "  lift photo.jpg --mask photo.mask.png --json -",
            "                                          also the grey mask, and a JSON report on stdout",
            "  cat photo.jpg | lift - > cutout.png     standard input to standard output",
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
        ("OUTPUT", ["output", "recursive", "force", "skip-existing", "mask", "labels", "json", "png-level"]),
        ("MODEL", ["model", "quality", "threshold", "no-refine", "threads"]),
        ("SUBJECTS", ["instances", "at", "each"]),
        ("LOOK", ["background", "crop", "margin", "square", "max-size"]),
        ("GENERAL", ["quiet", "help", "version"]),
    ]

    /// `  -o, --output PATH        help`, aligned.
    private static func optionLine(_ spec: OptionSpec) -> String {
        let short = spec.short.map { "-\($0), " } ?? "    "
        let name = "--\(spec.long)" + (spec.valueName.map { " \($0)" } ?? "")
        let left = "  " + short + name
        let column = 30
        return left.count < column ? left + String(repeating: " ", count: column - left.count) + spec.help
                                   : left + "\n" + String(repeating: " ", count: column) + spec.help
    }
}
