/// The prediction record of one key-frame macroblock (RFC 6386 §10–11): its segment, whether its
/// coefficients are skipped, its luma mode (one 16×16 mode or a mode per 4×4 subblock) and its chroma mode.
struct VP8MacroblockModes {
    /// The 16×16 luma modes and chroma modes (RFC 6386 `intra_mbmode`).
    static let dc: UInt8 = 0, vertical: UInt8 = 1, horizontal: UInt8 = 2, trueMotion: UInt8 = 3

    /// Subblock modes (RFC 6386 `intra_bmode`, same order).
    enum Subblock {
        static let dc: UInt8 = 0, trueMotion: UInt8 = 1, vertical: UInt8 = 2, horizontal: UInt8 = 3
        static let downLeft: UInt8 = 4, downRight: UInt8 = 5, verticalRight: UInt8 = 6
        static let verticalLeft: UInt8 = 7, horizontalDown: UInt8 = 8, horizontalUp: UInt8 = 9
    }

    var segment = 0
    /// The macroblock codes no coefficients (its skip flag).
    var skipsCoefficients = false
    /// Whether each 4×4 luma subblock has its own mode (B_PRED).
    var hasSubblockModes = false
    /// The 16×16 luma mode (when `hasSubblockModes` is false).
    var lumaMode: UInt8 = 0
    /// The 16 subblock modes in raster order (when `hasSubblockModes`).
    var subblockModes = [UInt8](repeating: 0, count: 16)
    /// The chroma mode.
    var chromaMode: UInt8 = 0
}

/// Reads the prediction records of macroblock rows from the first partition, keeping the subblock
/// mode contexts: the modes of the subblocks above (one row per frame) and to the left (one per row).
struct VP8ModeReader {
    /// Bottom-row subblock modes of the macroblock row above, 4 per macroblock.
    private var above: [UInt8]
    /// Right-column subblock modes of the macroblock to the left.
    private var left = [UInt8](repeating: 0, count: 4)

    init(macroblocksPerRow: Int) {
        above = [UInt8](repeating: VP8MacroblockModes.Subblock.dc, count: macroblocksPerRow * 4)
    }

    /// Reads the records of one macroblock row into `row`.
    mutating func readRow(_ reader: inout VP8BoolDecoder, parameters: VP8FrameParameters, into row: inout [VP8MacroblockModes]) {
        for i in 0 ..< 4 { left[i] = VP8MacroblockModes.Subblock.dc }
        for x in row.indices { read(&reader, parameters: parameters, column: x, into: &row[x]) }
    }

    private mutating func read(_ reader: inout VP8BoolDecoder, parameters: VP8FrameParameters, column: Int,
                               into modes: inout VP8MacroblockModes) {
        let segmentation = parameters.segmentation
        if segmentation.updatesMap {
            let p = segmentation.treeProbabilities
            modes.segment = reader.read(p[0]) ? 2 + reader.readBit(p[2]) : reader.readBit(p[1])
        } else {
            modes.segment = 0
        }
        modes.skipsCoefficients = parameters.skipProbability.map { reader.read($0) } ?? false
        modes.hasSubblockModes = !reader.read(145)
        if modes.hasSubblockModes {
            let probabilities = VP8Tables.subblockModeProbabilities
            for y in 0 ..< 4 {
                var leftMode = left[y]
                for x in 0 ..< 4 {
                    let context = (Int(above[column * 4 + x]) * 10 + Int(leftMode)) * 9
                    leftMode = Self.readSubblockMode(&reader, probabilities, context)
                    modes.subblockModes[y * 4 + x] = leftMode
                    above[column * 4 + x] = leftMode
                }
                left[y] = leftMode
            }
        } else {
            let mode: UInt8 = reader.read(156) ? (reader.read(128) ? VP8MacroblockModes.trueMotion : VP8MacroblockModes.horizontal)
                                               : (reader.read(163) ? VP8MacroblockModes.vertical : VP8MacroblockModes.dc)
            modes.lumaMode = mode
            // For the contexts, a 16×16 mode counts as the subblock mode of the same name.
            let implied: UInt8 = [VP8MacroblockModes.Subblock.dc, VP8MacroblockModes.Subblock.vertical,
                                  VP8MacroblockModes.Subblock.horizontal, VP8MacroblockModes.Subblock.trueMotion][Int(mode)]
            for i in 0 ..< 4 {
                above[column * 4 + i] = implied
                left[i] = implied
            }
        }
        modes.chromaMode = !reader.read(142) ? VP8MacroblockModes.dc
            : !reader.read(114) ? VP8MacroblockModes.vertical
            : reader.read(183) ? VP8MacroblockModes.trueMotion : VP8MacroblockModes.horizontal
    }

    /// Reads a subblock mode with the tree of RFC 6386 §11.2 and the 9 probabilities at `context`.
    private static func readSubblockMode(_ reader: inout VP8BoolDecoder, _ p: [UInt8], _ context: Int) -> UInt8 {
        typealias Mode = VP8MacroblockModes.Subblock
        if !reader.read(p[context]) { return Mode.dc }
        if !reader.read(p[context + 1]) { return Mode.trueMotion }
        if !reader.read(p[context + 2]) { return Mode.vertical }
        if !reader.read(p[context + 3]) {
            if !reader.read(p[context + 4]) { return Mode.horizontal }
            return reader.read(p[context + 5]) ? Mode.verticalRight : Mode.downRight
        }
        if !reader.read(p[context + 6]) { return Mode.downLeft }
        if !reader.read(p[context + 7]) { return Mode.verticalLeft }
        return reader.read(p[context + 8]) ? Mode.horizontalUp : Mode.horizontalDown
    }
}
