/// The marker segments before the entropy-coded data, in libjpeg's order: SOI, JFIF APP0, ICC
/// profile APP2 chunks, one DQT per table, SOF0, one DHT per table (DC then AC of each component,
/// each table once), SOS.
extension JPEGEncoder {
    /// Profile bytes per APP2 chunk: a segment's 65533 payload bytes less the 14-byte
    /// `ICC_PROFILE\0` + sequence + count header (libjpeg's `jpeg_write_icc_profile`, Pillow).
    static let iccChunkBytes = 65_519

    /// The header bytes of a file with `layout`, quantisation `steps` per table (natural order),
    /// Huffman tables `huffman` (DC 0, AC 0, DC 1, AC 1; the second pair only for colour) and an
    /// optional ICC profile (at most 255 chunks, checked by the caller).
    static func headers(layout: JPEGEncodingLayout, steps: [[UInt16]], huffman: [JPEGHuffmanSpec], iccProfile: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xFF, JPEGMarker.soi]
        // JFIF 1.01, no density unit, 1:1 aspect, no thumbnail.
        segment(JPEGMarker.app0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0], into: &out)
        let chunks = (iccProfile.count + iccChunkBytes - 1) / iccChunkBytes
        for chunk in 0 ..< chunks {
            let body = iccProfile[chunk * iccChunkBytes ..< min(iccProfile.count, (chunk + 1) * iccChunkBytes)]
            segment(JPEGMarker.app2, Array("ICC_PROFILE".utf8) + [0, UInt8(chunk + 1), UInt8(chunks)] + body, into: &out)
        }
        for (id, table) in steps.enumerated() {
            segment(JPEGMarker.dqt, [UInt8(id)] + JPEGZigzag.natural.prefix(64).map { UInt8(table[Int($0)]) }, into: &out)
        }
        var frame: [UInt8] = [8, UInt8(layout.height >> 8), UInt8(layout.height & 0xFF), UInt8(layout.width >> 8),
                              UInt8(layout.width & 0xFF), UInt8(layout.components.count)]
        for (index, component) in layout.components.enumerated() {
            frame += [UInt8(index + 1), UInt8(component.h << 4 | component.v), UInt8(component.table)]
        }
        segment(0xC0, frame, into: &out)
        for table in 0 ..< huffman.count / 2 {
            for (tableClass, spec) in [(0, huffman[table * 2]), (1, huffman[table * 2 + 1])] {
                segment(JPEGMarker.dht, [UInt8(tableClass << 4 | table)] + spec.counts + spec.symbols, into: &out)
            }
        }
        var scan: [UInt8] = [UInt8(layout.components.count)]
        for (index, component) in layout.components.enumerated() {
            scan += [UInt8(index + 1), UInt8(component.table << 4 | component.table)]
        }
        segment(JPEGMarker.sos, scan + [0, 63, 0], into: &out)
        return out
    }

    /// Appends marker `code` with `payload` (its length field counts itself and the payload).
    private static func segment(_ code: UInt8, _ payload: [UInt8], into out: inout [UInt8]) {
        let length = payload.count + 2
        precondition(length <= 0xFFFF, "a marker segment holds at most 65533 bytes")
        out += [0xFF, code, UInt8(length >> 8), UInt8(length & 0xFF)]
        out += payload
    }
}
