/// Decoding of sequential (baseline and extended) scans: each block is Huffman-decoded, then
/// dequantised and inverse-transformed straight into its component's sample plane.
extension JPEGEntropyDecoder {
    /// Decodes every block of a sequential scan into `storage`'s planes.
    /// - Parameter quant: per scan slot, the component's 64 quantisation values in natural order.
    mutating func decodeSequentialScan(frame: JPEGFrame, scan: JPEGScan, storage: JPEGFrameStorage,
                                       quant: [UnsafePointer<Int32>]) throws(JPEGError) {
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        block.initialize(repeating: 0, count: 64)
        defer { block.deallocate() }
        let slots = scan.componentIndices.count
        // Tables exist for every slot: parseScan checked them.
        let dc = scan.dcTables.compactMap { $0?.pointers }, ac = scan.acTables.compactMap { $0?.pointers }
        precondition(dc.count == slots && ac.count == slots, "sequential scan without its Huffman tables")
        // `scan` owns the tables behind `dc` and `ac`.
        defer { withExtendedLifetime(scan) {} }
        let planes = scan.componentIndices.map { storage.planes[$0] }
        let strides = scan.componentIndices.map { storage.strides[$0] }
        try JPEGZigzag.natural.withUnsafeBufferPointer { (zigzag) throws(JPEGError) in
            try forEachBlock(frame: frame, scan: scan) { (d, slot, x, y) throws(JPEGError) in
                let hasAC = try d.decodeSequentialBlock(into: block, dc: dc[slot], ac: ac[slot], slot: slot, zigzag: zigzag)
                let stride: Int = strides[slot]
                let offset: Int = (y &* 8) &* stride &+ x &* 8
                if hasAC {
                    JPEGIDCT.islow(block, quant[slot], planes[slot] + offset, stride)
                    block.update(repeating: 0, count: 64)
                } else {
                    JPEGIDCT.dcOnly(block[0], quant[slot], planes[slot] + offset, stride)
                    block[0] = 0
                }
            }
        }
    }

    /// Decodes one block's DC difference and AC run/levels into `block` (natural order, zeroed on entry).
    /// - Returns: whether any AC coefficient was coded.
    @inline(__always)
    mutating func decodeSequentialBlock(into block: UnsafeMutablePointer<Int16>, dc: JPEGHuffmanTable.Pointers, ac: JPEGHuffmanTable.Pointers,
                                        slot: Int, zigzag: UnsafeBufferPointer<UInt8>) throws(JPEGError) -> Bool {
        let category = reader.decode(dc)
        if category < 0 { try badCode(at: reader.position) }
        predictions[slot] &+= reader.receiveExtend(category)
        block[0] = Int16(truncatingIfNeeded: predictions[slot])
        var k = 1
        var hasAC = false
        while k < 64 {
            if reader.count < 16 { reader.fill() }
            let fast = ac.fastAC[reader.peek(JPEGHuffmanTable.lookaheadBits)]
            if fast != 0 {
                reader.skip(Int(fast & 15))
                k &+= Int((fast &>> 4) & 15)
                block[Int(zigzag[k])] = Int16(truncatingIfNeeded: fast &>> 8)
                hasAC = true
                k &+= 1
                continue
            }
            let rs = reader.decode(ac)
            if rs < 0 { try badCode(at: reader.position) }
            let run = rs &>> 4, size = rs & 15
            if size != 0 {
                k &+= run
                block[Int(zigzag[k])] = Int16(truncatingIfNeeded: reader.receiveExtend(size))
                hasAC = true
                k &+= 1
            } else {
                if run != 15 { break }
                k &+= 16
            }
        }
        return hasAC
    }
}
