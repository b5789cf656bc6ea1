import Lift

/// How `--each` names one file per subject from the path a single output would have had: the subject
/// number goes before Lift's output suffix (`photo.cutout.png` → `photo.2.cutout.png`, `photo.mask.png`
/// → `photo.2.mask.png`, so directory scans still skip them) or else before the extension
/// (`item.png` → `item.2.png`, `item` → `item.2`).
struct SubjectFileNaming: Sendable, Equatable {
    /// Everything before the number, ending in `.`.
    let prefix: String
    /// Everything after the number (`.cutout.png`, `.png` or `""`).
    let suffix: String

    /// The naming for `path`, the file one output of this kind would have been.
    init(path: String) {
        let name = PathText.name(of: path)
        let lower = name.lowercased()
        let suffixLength: Int
        if let known = OutputPlanner.outputSuffixes.first(where: { lower.hasSuffix($0) && lower.count > $0.count }) {
            suffixLength = known.count
        } else if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            suffixLength = name.distance(from: dot, to: name.endIndex)
        } else {
            suffixLength = 0
        }
        prefix = String(path.dropLast(suffixLength)) + "."
        suffix = String(path.suffix(suffixLength))
    }

    /// The file for subject `number` (1-based, as in `--instances` and the label map).
    func path(for number: Int) -> String { prefix + String(number) + suffix }

    /// Whether `name`, a file name in the directory of `prefix`, is one of these files (any number).
    func matches(name: String) -> Bool {
        let namePrefix = PathText.name(of: prefix)
        guard name.count > namePrefix.count + suffix.count, name.hasPrefix(namePrefix), name.hasSuffix(suffix) else {
            return false
        }
        let number = name.dropFirst(namePrefix.count).dropLast(suffix.count)
        return number.first != "0" && number.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The directory the files go to.
    var directory: String { PathText.directory(of: prefix) }

    /// Whether `path` (spelled like the path this naming was made from) is one of these files.
    func contains(_ path: String) -> Bool {
        PathText.directory(of: path) == directory && matches(name: PathText.name(of: path))
    }

    /// The paths whose namings hold `path`: it with one `.N` (a number without leading zero, between dots
    /// or before the end of the name) taken out, where that naming numbers it back.
    static func standIns(containing path: String) -> [String] {
        let name = Array(PathText.name(of: path)), directoryPart = String(path.dropLast(name.count))
        var result: [String] = []
        var start = 0
        while start < name.count {
            guard name[start] == ".", start + 1 < name.count, name[start + 1] != "0", name[start + 1].isASCII, name[start + 1].isNumber else {
                start += 1
                continue
            }
            var end = start + 1
            while end < name.count, name[end].isASCII, name[end].isNumber { end += 1 }
            if end == name.count || name[end] == "." {
                let standIn = directoryPart + String(name[..<start]) + String(name[end...])
                if SubjectFileNaming(path: standIn).contains(path) { result.append(standIn) }
            }
            start = end
        }
        return result
    }
}
