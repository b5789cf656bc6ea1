/// The scans a frame has had, and the checks each new scan must pass before it is decoded: the
/// progression rules (ITU T.81 G.1.1.1, tracked per coefficient as libjpeg's `coef_bits`) and the
/// frame's decoding work budget.
///
/// A progressive scan revisits every block it covers however few bytes it takes (an end-of-band run
/// covers thousands of blocks in a few bits), so a small file repeating one scan could make a decode
/// take minutes. Under the rules each coefficient is coded once by a first scan (`Ah` = 0) and then
/// refined at most once per bit, each refinement taking the bit below the last (`Ah` = the last
/// scan's `Al`): at most 14 scans per coefficient (`Al` ≤ 13). A sequential frame codes each
/// component once. The budget bounds the whole decode by the frame's size whatever the rules allow:
/// `DecodingLimits.maxCoefficientPasses` visits of each coefficient, refused before the scan that
/// would pass it.
struct JPEGProgression {
    /// Per component, per coefficient (zigzag position 0…63): the lowest bit coded so far (the `Al`
    /// of the last scan that covered it), or -1 before any scan has.
    private var codedBits: [[Int8]]
    /// Coefficient visits of the scans admitted so far, and the most allowed.
    private(set) var work = 0
    let budget: Int
    private let passes: Int

    /// The state before the first scan of `frame`, whose scans may visit each coefficient `passes` times.
    init(frame: JPEGFrame, passes: Int) {
        codedBits = Array(repeating: Array(repeating: -1, count: 64), count: frame.components.count)
        // The frame passed the pixel limits, so the count is far from overflowing.
        let coefficients = frame.components.reduce(0) { $0 + $1.paddedBlocksPerLine * $1.paddedBlocksPerColumn * 64 }
        let (product, overflow) = coefficients.multipliedReportingOverflow(by: max(0, passes))
        budget = overflow ? Int.max : product
        self.passes = passes
    }

    /// Checks `scan` against the scans before it and the budget, then records it.
    /// - Throws: `JPEGError.malformedSegment` for a scan the progression does not allow (an AC band
    ///   before its component's DC, a coefficient coded twice by first scans, a refinement of a bit
    ///   that is not the next one, a component in two scans of a sequential frame);
    ///   `.limitExceeded` when the scan would pass the work budget.
    mutating func admit(_ scan: JPEGScan, frame: JPEGFrame) throws(JPEGError) {
        let ss = scan.spectralStart, se = scan.spectralEnd, ah = scan.approximationHigh, al = scan.approximationLow
        for index in scan.componentIndices {
            let id = frame.components[index].id
            if !frame.isProgressive {
                guard codedBits[index][0] < 0 else {
                    throw refusal(scan, "component \(id) is in a second scan; a sequential frame codes each component once")
                }
                continue
            }
            // The standard codes a component's DC before its AC bands; refusing the reverse also keeps
            // the first-scan size check honest (AC scans can cover every block with a few end-of-band runs).
            if ss > 0, codedBits[index][0] < 0 { throw refusal(scan, "AC scan of component \(id) before its DC scan") }
            for k in ss ... se {
                let coded = Int(codedBits[index][k])
                if ah == 0, coded >= 0 {
                    throw refusal(scan, "coefficient \(k) of component \(id) is coded again by a first scan (Ah=0); each is coded once, then refined")
                }
                if ah > 0, coded != ah {
                    throw refusal(scan, "Ah=\(ah) refines coefficient \(k) of component \(id), whose scans so far "
                                  + (coded < 0 ? "are none" : "coded it down to bit \(coded)"))
                }
            }
        }
        let cost = blocks(of: scan, frame: frame) * (se - ss + 1)
        guard work + cost <= budget else {
            throw .limitExceeded(what: "decoding work in coefficient visits (\(passes) per coefficient)",
                                 value: work + cost, limit: budget)
        }
        work += cost
        for index in scan.componentIndices {
            for k in ss ... se { codedBits[index][k] = Int8(al) }
        }
    }

    /// Blocks `scan` decodes: a single-component scan its component's real blocks, an interleaved one
    /// every block of its MCUs.
    private func blocks(of scan: JPEGScan, frame: JPEGFrame) -> Int {
        if scan.componentIndices.count == 1 {
            let c = frame.components[scan.componentIndices[0]]
            return c.blocksPerLine * c.blocksPerColumn
        }
        return scan.componentIndices.reduce(0) { $0 + frame.components[$1].paddedBlocksPerLine * frame.components[$1].paddedBlocksPerColumn }
    }

    private func refusal(_ scan: JPEGScan, _ reason: String) -> JPEGError {
        .malformedSegment(marker: "SOS", offset: scan.offset, reason: reason)
    }
}
