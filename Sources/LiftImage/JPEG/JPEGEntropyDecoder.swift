/// State shared by the sequential and progressive scan decoders: the bit reader, DC predictions,
/// the end-of-band run, restart-interval bookkeeping and the walk over a scan's MCUs.
struct JPEGEntropyDecoder {
    var reader: JPEGBitReader
    /// DC prediction per scan component slot.
    var predictions = SIMD4<Int32>()
    /// Remaining blocks of an end-of-band run (progressive AC scans).
    var eobRun = 0
    let restartInterval: Int
    var mcusUntilRestart: Int
    /// Offset of the scan's SOS marker, for error messages.
    let scanOffset: Int

    init(data: UnsafeBufferPointer<UInt8>, scan: JPEGScan, restartInterval: Int) {
        reader = JPEGBitReader(data: data, position: scan.dataOffset)
        self.restartInterval = restartInterval
        mcusUntilRestart = restartInterval
        scanOffset = scan.offset
    }

    /// Called before each MCU: at the end of a restart interval, expects an RSTn marker and resets
    /// the predictions and the end-of-band run.
    @inline(__always) mutating func beginMCU() throws(JPEGError) {
        guard restartInterval > 0 else { return }
        if mcusUntilRestart == 0 { try restart() }
        mcusUntilRestart &-= 1
    }

    @inline(__always) private mutating func restart() throws(JPEGError) {
        guard let marker = reader.skipToMarker() else { throw .truncated(marker: "SOS", offset: scanOffset) }
        let code = reader.data[marker + 1]
        guard JPEGMarker.isRestart(code) else {
            throw .corruptData(marker: "SOS", offset: marker, reason: "expected a restart marker, found \(JPEGMarker.name(code))")
        }
        reader.position = marker + 2
        predictions = SIMD4<Int32>()
        eobRun = 0
        mcusUntilRestart = restartInterval
    }

    /// Called after each MCU: fails when the MCU needed bits beyond the scan's data.
    @inline(__always) func endMCU() throws(JPEGError) {
        if reader.overran {
            throw Self.overrunError(atEndOfData: reader.atEndOfData, position: reader.position, scanOffset: scanOffset)
        }
    }

    // The error paths take plain values so the hot loop never copies the decoder to call them.

    private static func overrunError(atEndOfData: Bool, position: Int, scanOffset: Int) -> JPEGError {
        if atEndOfData { return .truncated(marker: "SOS", offset: scanOffset) }
        return .corruptData(marker: "SOS", offset: position,
                            reason: "entropy-coded data of the scan at byte \(scanOffset) ends before its last block")
    }

    /// Throws the error for an undecodable Huffman code found before byte `position`.
    @inline(__always) func badCode(at position: Int) throws(JPEGError) -> Never {
        throw Self.badCodeError(position: position, scanOffset: scanOffset)
    }

    private static func badCodeError(position: Int, scanOffset: Int) -> JPEGError {
        .corruptData(marker: "SOS", offset: position, reason: "invalid Huffman code in the scan at byte \(scanOffset)")
    }

    /// Visits every block of the scan in coding order, calling `body(slot, blockX, blockY)` with the
    /// component's slot in the scan and the block's position in that component.
    /// A scan with one component codes its blocks one per MCU over the real (unpadded) block grid;
    /// an interleaved scan codes `h x v` blocks of each component per MCU over the padded grid.
    /// The walk works on a local copy of the decoder, which LLVM keeps in registers (the bit
    /// buffer above all); `self` is updated when the walk ends.
    @inline(__always)
    mutating func forEachBlock(frame: JPEGFrame, scan: JPEGScan,
                               _ body: (inout JPEGEntropyDecoder, Int, Int, Int) throws(JPEGError) -> Void) throws(JPEGError) {
        var d = self
        defer { self = d }
        if scan.componentIndices.count == 1 {
            let c = frame.components[scan.componentIndices[0]]
            for y in 0 ..< c.blocksPerColumn {
                for x in 0 ..< c.blocksPerLine {
                    try d.beginMCU()
                    try body(&d, 0, x, y)
                    try d.endMCU()
                }
            }
            return
        }
        let components = scan.componentIndices.map { frame.components[$0] }
        for mcuY in 0 ..< frame.mcusPerColumn {
            for mcuX in 0 ..< frame.mcusPerLine {
                try d.beginMCU()
                for (slot, c) in components.enumerated() {
                    for v in 0 ..< c.v {
                        for h in 0 ..< c.h { try body(&d, slot, mcuX &* c.h &+ h, mcuY &* c.v &+ v) }
                    }
                }
                try d.endMCU()
            }
        }
    }
}
