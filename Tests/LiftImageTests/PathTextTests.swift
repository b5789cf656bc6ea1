import Foundation
import LiftImage
import TestSupport
import Testing

/// `PathText` and `Directories`: path arithmetic on any string (short names on which Foundation's
/// `deletingLastPathComponent` traps, `/` alone, trailing slashes, `..`), and `mkdir -p` without Foundation.
@Suite struct PathTextTests {
    @Test(arguments: [
        ("m", ".", "m", "m", ""), (".", ".", ".", ".", ""), ("..", ".", "..", "..", ""), ("", ".", "", "", ""),
        ("/", "/", "", "", ""), ("//", "/", "", "", ""), ("a/", "a", "", "", ""), ("/m", "/", "m", "m", ""),
        ("a/b.PNG", "a", "b.PNG", "b", "png"), ("a/.hidden", "a", ".hidden", ".hidden", ""), ("../x.y.z", "..", "x.y.z", "x.y", "z"),
        ("é/ü.jpg", "é", "ü.jpg", "ü", "jpg"), ("a/../", "a/..", "", "", ""), ("photo.", ".", "photo.", "photo", ""),
    ])
    func splitsAnyPath(path: String, directory: String, name: String, stem: String, fileExtension: String) {
        #expect(PathText.directory(of: path) == directory)
        #expect(PathText.name(of: path) == name)
        #expect(PathText.stem(of: path) == stem)
        #expect(PathText.fileExtension(of: path) == fileExtension)
    }

    @Test func joinsWithOneSlash() {
        #expect(PathText.join(".", "m") == "m")
        #expect(PathText.join("", "m") == "m")
        #expect(PathText.join("/", "m") == "/m")
        #expect(PathText.join("a/", "m") == "a/m")
        #expect(PathText.join("a", "m") == "a/m")
    }

    @Test(arguments: [
        ("m", "/w/m"), (".", "/w"), ("..", "/"), ("../../..", "/"), ("/", "/"), ("a//b/./c/", "/w/a/b/c"),
        ("a/../b", "/w/b"), ("/x/..", "/"), ("", "/w"),
    ])
    func standardizesByText(path: String, expected: String) {
        #expect(PathText.standardized(path, currentDirectory: "/w") == expected)
    }

    @Test func createsMissingDirectoriesAndNamesWhatIsInTheWay() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try Directories.create(scratch.path("a/b//c/"))
        #expect(Directories.exists(scratch.path("a/b/c")))
        try Directories.create(scratch.path("a/b"))  // exists: nothing to do
        try scratch.write([1], to: "f")
        let blocked = #expect(throws: Directories.Failure.self) { try Directories.create(scratch.path("f/g")) }
        #expect(blocked?.path == scratch.path("f") && blocked?.reason == "it exists and is not a directory")
        #expect(try Directories.names(in: scratch.path("a")) == ["b"])
        #expect(throws: Directories.Failure.self) { try Directories.names(in: scratch.path("missing")) }
    }
}
