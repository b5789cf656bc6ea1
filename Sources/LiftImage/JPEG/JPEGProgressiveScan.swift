/// Decoding of progressive scans (ITU T.81 G.1.2) into the frame's coefficient buffers: DC first
/// and refinement scans, AC spectral-selection first scans with end-of-band runs, and AC
/// successive-approximation refinement, following libjpeg's jdphuff.c.
extension JPEGEntropyDecoder {
    /// Decodes one progressive scan into `storage.coefficients`.
    mutating func decodeProgressiveScan(frame: JPEGFrame, scan: JPEGScan, storage: JPEGFrameStorage) throws(JPEGError) {
        let coefficients = scan.componentIndices.map { storage.coefficients[$0] }
        let blocksPerLine = scan.componentIndices.map { frame.components[$0].paddedBlocksPerLine }
        let al = Int32(scan.approximationLow)
        let ss = scan.spectralStart, se = scan.spectralEnd
        let refining = scan.approximationHigh != 0
        let dcTables = scan.dcTables.map { $0?.pointers }, acTables = scan.acTables.map { $0?.pointers }
        // `scan` owns the tables behind `dcTables` and `acTables`.
        defer { withExtendedLifetime(scan) {} }
        try JPEGZigzag.natural.withUnsafeBufferPointer { (zigzag) throws(JPEGError) in
            try forEachBlock(frame: frame, scan: scan) { (d, slot, x, y) throws(JPEGError) in
                let block = coefficients[slot] + (y &* blocksPerLine[slot] &+ x) &* 64
                if ss == 0 {
                    if refining {
                        if d.reader.bit() { block[0] |= Int16(truncatingIfNeeded: Int32(1) &<< al) }
                    } else {
                        guard let table = dcTables[slot] else { preconditionFailure("DC scan without its table") }
                        let category = d.reader.decode(table)
                        if category < 0 { try d.badCode(at: d.reader.position) }
                        d.predictions[slot] &+= d.reader.receiveExtend(category)
                        block[0] = Int16(truncatingIfNeeded: d.predictions[slot] &<< al)
                    }
                } else {
                    guard let table = acTables[slot] else { preconditionFailure("AC scan without its table") }
                    if refining {
                        try d.refineAC(block, table: table, start: ss, end: se, low: al, zigzag: zigzag)
                    } else {
                        try d.firstAC(block, table: table, start: ss, end: se, low: al, zigzag: zigzag)
                    }
                }
            }
        }
    }

    /// First AC scan of a band: run/level codes, with EOBRUN codes skipping whole blocks.
    @inline(__always)
    private mutating func firstAC(_ block: UnsafeMutablePointer<Int16>, table: JPEGHuffmanTable.Pointers, start: Int, end: Int,
                                  low: Int32, zigzag: UnsafeBufferPointer<UInt8>) throws(JPEGError) {
        if eobRun > 0 {
            eobRun &-= 1
            return
        }
        var k = start
        while k <= end {
            if reader.count < 16 { reader.fill() }
            let fast = table.fastAC[reader.peek(JPEGHuffmanTable.lookaheadBits)]
            if fast != 0 {
                reader.skip(Int(fast & 15))
                k &+= Int((fast &>> 4) & 15)
                block[Int(zigzag[k])] = Int16(truncatingIfNeeded: (fast &>> 8) &<< low)
                k &+= 1
                continue
            }
            let rs = reader.decode(table)
            if rs < 0 { try badCode(at: reader.position) }
            let run = rs &>> 4, size = rs & 15
            if size != 0 {
                k &+= run
                block[Int(zigzag[k])] = Int16(truncatingIfNeeded: reader.receiveExtend(size) &<< low)
                k &+= 1
            } else if run == 15 {
                k &+= 16
            } else {
                eobRun = 1 &<< run
                if run != 0 { eobRun &+= reader.bits(run) }
                eobRun &-= 1
                break
            }
        }
    }

    /// AC refinement scan: one correction bit for each coefficient already non-zero, and new
    /// coefficients of magnitude `1 << low` placed after the given number of zero coefficients.
    @inline(__always)
    private mutating func refineAC(_ block: UnsafeMutablePointer<Int16>, table: JPEGHuffmanTable.Pointers, start: Int, end: Int,
                                   low: Int32, zigzag: UnsafeBufferPointer<UInt8>) throws(JPEGError) {
        let p1 = Int16(truncatingIfNeeded: Int32(1) &<< low), m1 = Int16(truncatingIfNeeded: Int32(-1) &<< low)
        @inline(__always) func correct(_ index: Int, _ reader: inout JPEGBitReader) {
            let value = block[index]
            if reader.bit(), value & p1 == 0 { block[index] = value >= 0 ? value &+ p1 : value &+ m1 }
        }
        var k = start
        if eobRun == 0 {
            while k <= end {
                let rs = reader.decode(table)
                if rs < 0 { try badCode(at: reader.position) }
                var run = rs &>> 4
                var newValue: Int16 = 0
                if rs & 15 != 0 {
                    // The size must be 1; libjpeg only warns when it is not, and so do we by ignoring it.
                    newValue = reader.bit() ? p1 : m1
                } else if run != 15 {
                    eobRun = 1 &<< run
                    if run != 0 { eobRun &+= reader.bits(run) }
                    break
                }
                while k <= end {
                    let index = Int(zigzag[k])
                    if block[index] != 0 {
                        correct(index, &reader)
                    } else {
                        if run == 0 { break }
                        run &-= 1
                    }
                    k &+= 1
                }
                if newValue != 0 { block[Int(zigzag[k])] = newValue }
                k &+= 1
            }
        }
        if eobRun > 0 {
            while k <= end {
                let index = Int(zigzag[k])
                if block[index] != 0 { correct(index, &reader) }
                k &+= 1
            }
            eobRun &-= 1
        }
    }
}
