import LiftImage
import LiftTensor

/// The refined alpha of a photo's subjects (`OwnershipMap.ownedAlpha` of the soft map) kept in one
/// byte per pixel instead of four, with the exact Float values still at hand: most pixels are
/// exactly 0 or exactly 1 (the snap makes them so), and the few in between (edges, hair) are
/// recomputed from the soft map, which is itself computed on demand (the guided filter's
/// coefficients or the upsampled model map). Rows are rendered with `rows(keeping:)`.
package final class OwnedAlpha: @unchecked Sendable {
    // @unchecked: the codes are written once in init and only read afterwards.
    /// Size in pixels.
    package let width: Int, height: Int
    /// Per pixel: 0 (alpha exactly 0), 255 (exactly 1) or 1 (in between: recompute), row-major.
    private let codes: UnsafeMutablePointer<UInt8>
    /// The soft map the alpha was made from.
    private let soft: any MapRowSampler
    /// Every instance's labels (also those a keep-largest analysis left out) and their ownership.
    private let labels: RunLabels
    private let ownership: OwnershipMap
    private let snap: Float, gain: Float

    /// The owned alpha of `soft` (`OwnershipMap.ownedAlpha` with `labels`, `threshold` and `snap`),
    /// zeroed outside the instances whose label `keeping` marks (`nil`: all).
    package init(soft: any MapRowSampler, labels: RunLabels, ownership: OwnershipMap, threshold: Float, snap: Float,
                 keeping: [Bool]?, threads: Int) {
        precondition(snap >= 0 && snap < 0.5, "snap must be in 0..<0.5")
        precondition(soft.width == labels.width && soft.height == labels.height && ownership.width == labels.width,
                     "sizes must match")
        width = soft.width
        height = soft.height
        self.soft = soft
        self.labels = labels
        self.ownership = ownership
        self.snap = snap
        gain = 1 / (1 - 2 * snap)
        codes = .allocate(capacity: width * height)
        let width = width, block = ownership.block, gain = gain, softBytes = (soft.scratchBytes + 15) / 16 * 16
        let gridWidth = (width + block - 1) / block
        nonisolated(unsafe) let codes = codes
        Parallel.forEach(count: height, threads: threads, minimumPerPart: 16) { rows in
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: softBytes + width * 8, alignment: 16)
            defer { scratch.deallocate() }
            let softRow = (scratch + softBytes).assumingMemoryBound(to: Float.self)
            let labelRow = (scratch + softBytes + width * 4).assumingMemoryBound(to: Int32.self)
            for y in rows {
                let out = codes + y &* width
                labels.render(row: y, into: labelRow)
                ownership.withOwners(ofRow: y) { owners in
                    // The soft map only where a block has an owner: elsewhere the alpha is 0 whatever it is
                    // (a labelled pixel's block is owned by a label at least as large).
                    soft.prepare(row: y, scratch: scratch)
                    var gx = 0
                    while gx < gridWidth {
                        guard owners[gx] != 0 else { gx += 1; continue }
                        var end = gx + 1
                        while end < gridWidth && owners[end] != 0 { end += 1 }
                        soft.render(row: y, columns: gx * block ..< min(end * block, width), into: softRow, prepared: scratch)
                        gx = end
                    }
                    for gx in 0 ..< gridWidth {
                        let owner = owners[gx], columns = gx &* block ..< min(gx &* block &+ block, width)
                        guard owner != 0 else {
                            (out + columns.lowerBound).update(repeating: 0, count: columns.count)  // no label either
                            continue
                        }
                        for x in columns {
                            let label = labelRow[x]
                            var value = OwnershipMap.ownedValue(soft: softRow[x], label: label, owner: owner, threshold: threshold,
                                                                snap: snap, gain: gain)
                            if let keeping, !keeping[Int(label != 0 ? label : owner)] { value = 0 }
                            out[x] = value == 0 ? 0 : value == 1 ? 255 : 1
                        }
                    }
                }
            }
        }
    }

    deinit { codes.deallocate() }

    /// The alpha's rows, zeroed outside the instances whose label `keeping` marks (`nil`: as made).
    package func rows(keeping: [Bool]? = nil) -> MapRows {
        MapRows(OwnedAlphaRows(alpha: self, keeping: keeping))
    }

    /// Writes row `y` to `out`; `scratch` holds the soft map's prepared row and, when `keeping` is
    /// given, one row of labels after it (`labelOffset` bytes in).
    fileprivate func render(row y: Int, into out: UnsafeMutablePointer<Float>, keeping: [Bool]?, scratch: UnsafeMutableRawPointer,
                            labelOffset: Int) {
        let row = codes + y &* width
        var between = false
        var x = 0
        // Eight codes at a time: all 0 or all 255 (most of a photo) expand without a look at each.
        let raw = UnsafeRawPointer(row)
        while x &+ 8 <= width {
            let word = raw.loadUnaligned(fromByteOffset: x, as: UInt64.self)
            if word == 0 || word == .max {
                (out + x).update(repeating: word == 0 ? 0 : 1, count: 8)
            } else {
                for i in x ..< x &+ 8 {
                    let code = row[i]
                    out[i] = code == 255 ? 1 : 0
                    between = between || code &- 1 < 254
                }
            }
            x &+= 8
        }
        for i in x ..< width {
            let code = row[i]
            out[i] = code == 255 ? 1 : 0
            between = between || code &- 1 < 254
        }
        if between {
            // Only the codes between 0 and 255 need the soft map: the same value, the same formula.
            soft.prepare(row: y, scratch: scratch)
            for x in 0 ..< width where row[x] &- 1 < 254 {
                out[x] = OwnershipMap.stretched(soft.value(x: x, y: y, prepared: scratch), snap: snap, gain: gain)
            }
        }
        guard let keeping else { return }
        let labelRow = (scratch + labelOffset).assumingMemoryBound(to: Int32.self)
        labels.render(row: y, into: labelRow)
        let block = ownership.block
        ownership.withOwners(ofRow: y) { owners in
            for gx in 0 ..< (width + block - 1) / block {
                let owner = owners[gx]
                for x in gx &* block ..< min(gx &* block &+ block, width) where row[x] != 0 {
                    let label = labelRow[x]
                    if !keeping[Int(label != 0 ? label : owner)] { out[x] = 0 }
                }
            }
        }
    }

    /// The label table `rows(keeping:)` takes: true for the labels in `labels`.
    package func keepingTable(_ labels: Set<Int32>) -> [Bool] {
        var table = [Bool](repeating: false, count: self.labels.count + 1)
        for label in labels where label > 0 && Int(label) <= self.labels.count { table[Int(label)] = true }
        return table
    }

    fileprivate var softScratchBytes: Int { (soft.scratchBytes + 15) / 16 * 16 }
}

/// `OwnedAlpha`'s rows for `MapRows`.
private struct OwnedAlphaRows: MapRowRenderer {
    let alpha: OwnedAlpha
    let keeping: [Bool]?

    var width: Int { alpha.width }
    var height: Int { alpha.height }
    var scratchBytes: Int { alpha.softScratchBytes + (keeping == nil ? 0 : alpha.width * 4) }

    func render(row y: Int, into out: UnsafeMutablePointer<Float>, scratch: UnsafeMutableRawPointer) {
        alpha.render(row: y, into: out, keeping: keeping, scratch: scratch, labelOffset: alpha.softScratchBytes)
    }
}
