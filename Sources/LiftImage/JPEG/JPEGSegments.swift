/// Parsing of the marker segments that carry tables, headers and metadata.
extension JPEGDecodeSession {
    /// A segment's payload: bytes after the 2-byte length, up to `end`.
    struct Segment {
        let code: UInt8
        /// Offset of the marker's `FF`.
        let offset: Int
        /// First payload byte and one past the last.
        let start: Int, end: Int
        var name: String { JPEGMarker.name(code) }
        var count: Int { end - start }
    }

    /// Reads the length field of the segment whose marker `FF` is at `offset`.
    func segment(code: UInt8, at offset: Int) throws(JPEGError) -> Segment {
        guard offset + 4 <= data.count else { throw .truncated(marker: JPEGMarker.name(code), offset: offset) }
        let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
        guard length >= 2 else {
            throw .malformedSegment(marker: JPEGMarker.name(code), offset: offset, reason: "length \(length) is below 2")
        }
        guard offset + 2 + length <= data.count else { throw .truncated(marker: JPEGMarker.name(code), offset: offset) }
        return Segment(code: code, offset: offset, start: offset + 4, end: offset + 2 + length)
    }

    /// DQT: one or more quantisation tables, 8- or 16-bit, stored in zigzag order.
    mutating func parseQuantizationTables(_ s: Segment) throws(JPEGError) {
        var p = s.start
        while p < s.end {
            let precision = Int(data[p] >> 4), id = Int(data[p] & 15)
            guard precision <= 1, id <= 3 else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "table precision \(precision) / id \(id) out of range")
            }
            let size = precision == 0 ? 64 : 128
            guard p + 1 + size <= s.end else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "table \(id) runs past the segment end")
            }
            var table = [Int32](repeating: 0, count: 64)
            for k in 0 ..< 64 {
                let value = precision == 0 ? Int32(data[p + 1 + k]) : Int32(data[p + 1 + 2 * k]) << 8 | Int32(data[p + 2 + 2 * k])
                table[Int(JPEGZigzag.natural[k])] = value
            }
            quantTables[id] = table
            p += 1 + size
        }
    }

    /// DHT: one or more Huffman tables (class 0 = DC, 1 = AC).
    mutating func parseHuffmanTables(_ s: Segment) throws(JPEGError) {
        var p = s.start
        while p < s.end {
            let tableClass = Int(data[p] >> 4), id = Int(data[p] & 15)
            guard tableClass <= 1, id <= 3 else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "table class \(tableClass) / id \(id) out of range")
            }
            guard p + 17 <= s.end else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "code counts run past the segment end") }
            let counts = (0 ..< 16).map { Int(data[p + 1 + $0]) }
            let total = counts.reduce(0, +)
            guard total <= 256, p + 17 + total <= s.end else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "table \(id) declares \(total) symbols, more than the segment holds")
            }
            let symbols = Array(data[(p + 17) ..< (p + 17 + total)])
            if tableClass == 0, let bad = symbols.first(where: { $0 > 15 }) {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "DC table \(id) has symbol \(bad) above 15")
            }
            guard let table = JPEGHuffmanTable(counts: counts, symbols: symbols) else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "table \(id) has more codes than its lengths allow (the all-ones code is reserved)")
            }
            if tableClass == 0 { dcTables[id] = table } else { acTables[id] = table }
            p += 17 + total
        }
    }

    /// DRI: the restart interval in MCUs (0 disables restarts).
    mutating func parseRestartInterval(_ s: Segment) throws(JPEGError) {
        guard s.count >= 2 else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "needs 2 bytes, has \(s.count)") }
        restartInterval = Int(data[s.start]) << 8 | Int(data[s.start + 1])
    }

    /// SOF0/1/2: the frame header. Other SOF kinds are rejected by the caller as unsupported.
    mutating func parseFrame(_ s: Segment, process: JPEGInfo.Process) throws(JPEGError) {
        guard frame == nil else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "a second frame header") }
        guard s.count >= 6 else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "frame header is \(s.count) bytes") }
        let precision = Int(data[s.start])
        let height = Int(data[s.start + 1]) << 8 | Int(data[s.start + 2])
        let width = Int(data[s.start + 3]) << 8 | Int(data[s.start + 4])
        let count = Int(data[s.start + 5])
        guard precision == 8 else { throw .unsupported(marker: s.name, offset: s.offset, feature: "\(precision)-bit samples") }
        guard height > 0 else { throw .unsupported(marker: s.name, offset: s.offset, feature: "height 0 (defined later by DNL)") }
        guard width > 0 else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "width 0") }
        guard count == 1 || count == 3 || count == 4 else {
            throw .unsupported(marker: s.name, offset: s.offset, feature: "\(count) components")
        }
        guard s.count >= 6 + 3 * count else {
            throw .malformedSegment(marker: s.name, offset: s.offset, reason: "\(count) components need \(6 + 3 * count) bytes, segment has \(s.count)")
        }
        var components: [JPEGFrame.Component] = []
        for i in 0 ..< count {
            let p = s.start + 6 + 3 * i
            let id = data[p], h = Int(data[p + 1] >> 4), v = Int(data[p + 1] & 15), tq = Int(data[p + 2])
            guard (1 ... 4).contains(h), (1 ... 4).contains(v), tq <= 3 else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "component \(id) has sampling \(h)x\(v), table \(tq)")
            }
            guard !components.contains(where: { $0.id == id }) else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "component id \(id) appears twice")
            }
            components.append(.init(id: id, h: h, v: v, quantTableID: tq))
        }
        let hMax = components.map(\.h).max() ?? 1, vMax = components.map(\.v).max() ?? 1
        if count > 1, let c = components.first(where: { hMax % $0.h != 0 || vMax % $0.v != 0 }) {
            throw .unsupported(marker: s.name, offset: s.offset, feature: "component \(c.id) sampling \(c.h)x\(c.v) is not an integral fraction of \(hMax)x\(vMax)")
        }
        if width > limits.maxDimension || height > limits.maxDimension {
            throw .limitExceeded(what: "dimension", value: max(width, height), limit: limits.maxDimension)
        }
        if width * height > limits.maxPixels {
            throw .limitExceeded(what: "pixel count", value: width * height, limit: limits.maxPixels)
        }
        if MemoryBudget.estimate(width: width, height: height) > limits.maxMemoryBytes {
            throw .overMemoryBudget(width: width, height: height, budget: limits.maxMemoryBytes)
        }
        frame = JPEGFrame(offset: s.offset, markerCode: s.code, process: process, width: width, height: height, components: components)
    }

    /// SOS: the scan header; checks its progression parameters are valid on their own
    /// (`JPEGProgression` checks them against the scans before, then `checkTables` its tables).
    func parseScan(_ s: Segment, frame: JPEGFrame) throws(JPEGError) -> JPEGScan {
        guard s.count >= 1 else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "empty scan header") }
        let count = Int(data[s.start])
        guard (1 ... 4).contains(count), s.count >= 4 + 2 * count else {
            throw .malformedSegment(marker: s.name, offset: s.offset, reason: "\(count) components in a \(s.count)-byte scan header")
        }
        var indices: [Int] = [], dc: [JPEGHuffmanTable?] = [], ac: [JPEGHuffmanTable?] = []
        var blocksPerMCU = 0
        for i in 0 ..< count {
            let id = data[s.start + 1 + 2 * i], tables = data[s.start + 2 + 2 * i]
            guard let index = frame.components.firstIndex(where: { $0.id == id }), !indices.contains(index) else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "component \(id) is not in the frame or appears twice")
            }
            let td = Int(tables >> 4), ta = Int(tables & 15)
            guard td <= 3, ta <= 3 else { throw .malformedSegment(marker: s.name, offset: s.offset, reason: "table ids \(td)/\(ta) out of range") }
            indices.append(index)
            dc.append(dcTables[td])
            ac.append(acTables[ta])
            blocksPerMCU += frame.components[index].h * frame.components[index].v
        }
        let p = s.start + 1 + 2 * count
        let ss = Int(data[p]), se = Int(data[p + 1]), ah = Int(data[p + 2] >> 4), al = Int(data[p + 2] & 15)
        if count > 1, blocksPerMCU > 10 {
            throw .malformedSegment(marker: s.name, offset: s.offset, reason: "\(blocksPerMCU) blocks per MCU (at most 10)")
        }
        if frame.isProgressive {
            let validDC = ss == 0 && se == 0
            let validAC = ss >= 1 && ss <= se && se <= 63 && count == 1
            guard validDC || validAC, ah <= 13, al <= 13, ah == 0 || al == ah - 1 else {
                throw .malformedSegment(marker: s.name, offset: s.offset, reason: "invalid progression Ss=\(ss) Se=\(se) Ah=\(ah) Al=\(al) for \(count) components")
            }
        }
        let scan = JPEGScan(offset: s.offset, componentIndices: indices, dcTables: dc, acTables: ac,
                            spectralStart: frame.isProgressive ? ss : 0, spectralEnd: frame.isProgressive ? se : 63,
                            approximationHigh: frame.isProgressive ? ah : 0, approximationLow: frame.isProgressive ? al : 0,
                            dataOffset: s.end)
        return scan
    }

    /// Checks that the tables `scan` (parsed from `s`) needs exist; refinement scans of DC need none.
    func checkTables(_ s: Segment, scan: JPEGScan, frame: JPEGFrame) throws(JPEGError) {
        for (i, index) in scan.componentIndices.enumerated() {
            let tables = data[s.start + 2 + 2 * i]
            let needsDC = !frame.isProgressive || (scan.spectralStart == 0 && scan.approximationHigh == 0)
            let needsAC = !frame.isProgressive || scan.spectralStart > 0
            if needsDC, scan.dcTables[i] == nil { throw .missingTable(marker: s.name, offset: s.offset, kind: "DC Huffman", id: Int(tables >> 4)) }
            if needsAC, scan.acTables[i] == nil { throw .missingTable(marker: s.name, offset: s.offset, kind: "AC Huffman", id: Int(tables & 15)) }
            let tq = frame.components[index].quantTableID
            if quantTables[tq] == nil { throw .missingTable(marker: s.name, offset: s.offset, kind: "quantisation", id: tq) }
        }
    }

    /// APPn: JFIF and Adobe markers (colour space), EXIF (APP1) and ICC chunks (APP2).
    mutating func parseApplication(_ s: Segment) {
        func hasPrefix(_ prefix: [UInt8]) -> Bool {
            s.count >= prefix.count && data[s.start ..< s.start + prefix.count].elementsEqual(prefix)
        }
        switch s.code {
        case JPEGMarker.app0 where hasPrefix(Array("JFIF\0".utf8)):
            sawJFIF = true
        case JPEGMarker.app14 where hasPrefix(Array("Adobe".utf8)) && s.count >= 12:
            adobeTransform = Int(data[s.start + 11])
        case JPEGMarker.app1 where exif == nil && hasPrefix(Array("Exif\0\0".utf8)):
            exif = Array(data[(s.start + 6) ..< s.end])
        case JPEGMarker.app2 where hasPrefix(Array("ICC_PROFILE\0".utf8)) && s.count >= 14:
            iccChunks.append((sequence: Int(data[s.start + 12]), total: Int(data[s.start + 13]),
                              bytes: Array(data[(s.start + 14) ..< s.end])))
        default:
            break
        }
    }

    /// The ICC profile from its chunks, in sequence order; nil when absent, incomplete or oversized.
    func assembleICCProfile() -> [UInt8]? {
        guard let total = iccChunks.first?.total, total > 0, iccChunks.count == total,
              iccChunks.allSatisfy({ $0.total == total }) else { return nil }
        let sorted = iccChunks.sorted { $0.sequence < $1.sequence }
        guard sorted.map(\.sequence) == Array(1 ... total) else { return nil }
        guard sorted.reduce(0, { $0 + $1.bytes.count }) <= limits.maxChunkBytes else { return nil }
        return sorted.flatMap(\.bytes)
    }
}

/// The zigzag scan order: `natural[k]` is the row-major index of the k-th coefficient in a scan.
/// Entries 64…79 repeat 63 so corrupt run lengths land on a harmless slot, as in libjpeg.
enum JPEGZigzag {
    static let natural: [UInt8] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
        63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
    ]
}
