import Foundation
import LiftImage

/// The digests recorded beside weight files: `SHA256SUMS` in a weights directory, lines of 64
/// hexadecimal digits, two spaces and a file name, as `sha256sum` writes them (so
/// `sha256sum -c SHA256SUMS` checks the same files). The shipped `Weights/` has one; a file listed
/// there is checked against it every time it is loaded, so a damaged or altered file (a tensor
/// relabelled F16 → BF16 still parses) is an error rather than wrong cut-outs. A directory without
/// the manifest, or a file it does not list, is loaded unchecked.
public enum WeightsManifest {
    /// The manifest's file name.
    public static let fileName = "SHA256SUMS"

    /// The digest recorded for the file at `url`, or nil when its directory has no manifest or the
    /// manifest does not list it.
    /// - Throws: `WeightsManifest.InvalidManifest` when the manifest exists but cannot be read or a
    ///   line is not `HEX  NAME`.
    public static func recordedDigest(for url: URL) throws(InvalidManifest) -> String? {
        let manifest = url.deletingLastPathComponent().appendingPathComponent(fileName).path
        var status = stat()
        guard lstat(manifest, &status) == 0 else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try ImageIO.readFile(manifest, maxBytes: 1 << 20)
        } catch {
            throw InvalidManifest(path: manifest, reason: error.description)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw InvalidManifest(path: manifest, reason: "it is not UTF-8 text") }
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !rawLine.isEmpty {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine  // a manifest saved with CRLF line ends
            let digest = line.prefix(64), rest = line.dropFirst(64)
            guard digest.count == 64, digest.allSatisfy(\.isHexDigit), rest.hasPrefix("  ") || rest.hasPrefix(" *") else {
                throw InvalidManifest(path: manifest, reason: "line \(number + 1) is not a sha256 digest, two spaces and a file name")
            }
            if rest.dropFirst(2) == url.lastPathComponent[...] { return digest.lowercased() }
        }
        return nil
    }

    /// A manifest that exists but cannot be used: where, and why.
    public struct InvalidManifest: Error, Equatable, CustomStringConvertible {
        /// The manifest's path.
        public let path: String
        /// What is wrong with it.
        public let reason: String

        public var description: String { "cannot use the weight digests in \(path): \(reason)" }
    }
}
