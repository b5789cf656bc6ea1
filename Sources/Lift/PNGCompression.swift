/// How `ImageFiles.encodePNG` compresses a cut-out, as `--png-level` names it: zlib at a level
/// (`0`…`9`; an integer literal is one) or Lift's own fast compressor (`fast`).
public enum PNGCompression: Sendable, Equatable, ExpressibleByIntegerLiteral {
    /// zlib at `level`, 0 (stored) … 9 (smallest); other levels are refused when encoding.
    case zlib(level: Int)
    /// Lift's fpnge-style compressor (`PNGEncoder.Compressor.fast`): on a 12 MP cut-out ~9× faster
    /// than zlib level 4 for ~3 % more bytes (`Benchmarks/RESULTS.md`, "Fast PNG compressor").
    case fast

    /// zlib at the literal's level.
    public init(integerLiteral level: Int) {
        self = .zlib(level: level)
    }

    /// Parses a `--png-level` value: a zlib level `0`…`9` or `fast`; nil for anything else.
    public init?(argument: String) {
        if argument == "fast" {
            self = .fast
        } else if let level = Int(argument), (0...9).contains(level) {
            self = .zlib(level: level)
        } else {
            return nil
        }
    }
}

extension PNGEncoder.Options {
    /// Options that compress as `compression` says (the zlib level is checked by the encoder).
    init(level compression: PNGCompression, reduceColorType: Bool, metadata: PNGMetadata, threads: Int?) {
        switch compression {
        case .zlib(let level):
            self.init(level: level, reduceColorType: reduceColorType, metadata: metadata, threads: threads)
        case .fast:
            self.init(compressor: .fast, reduceColorType: reduceColorType, metadata: metadata, threads: threads)
        }
    }
}
