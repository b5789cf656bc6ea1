import LiftImage

/// The grouping's last step for a network with an affinity branch: each instance is split
/// again into the clusters of a mutex watershed (Wolf et al. 2018) over the cells' same-instance
/// probabilities (`InstanceCues.affinity`), so that an object whose centre got no peak of its own
/// can still come apart from the one it overlaps. The Swift form of `affinity_split` in
/// `Tools/instances/affinity_split.py`, giving the same label maps on the same inputs.
///
/// Per instance, on its cells (a cell belongs when the photo pixel at its model position does:
/// model pixel `s·i + (s − 1)/2` of stride `s`, scaled to the photo's pixel centres and rounded half
/// to even):
/// 1. Cell pairs one cell apart attract with weight `a`, their probability; the pairs further apart
///    repel with weight `1 − a − bias`. In decreasing weight (ties: map order, then raster order),
///    an attractive pair of positive weight joins two clusters unless a repulsive pair already holds
///    between them; a repulsive one of positive weight records that it does.
/// 2. Clusters are numbered by their first cell in raster order. Those under `minimumPiece` of the
///    cell grid join, the smallest first (ties: the lower number), the cluster they attract most
///    (summed weight of the attractive pairs between them; ties: the lower number), or the largest
///    other one (ties: the lower number) when they attract none.
/// 3. Every photo pixel of the instance takes the cluster whose indicator on the cell grid (1 on its
///    cells, 0 elsewhere), read bilinearly at the pixel as `CellSampler` reads a map, is largest
///    (ties: the lower number), so that seams run between cell centres instead of along the
///    cells' edges (steps of 4 model pixels, ~60 photo pixels at 12 MP). Where every indicator is
///    0, the cluster of the nearest of the 8 cells around the pixel's own (column `x` in cell
///    `⌊(x + 0.5) · cellWidth / width⌋`, rows alike) that has one (distance from the pixel to the
///    cells' centres, in cells; ties in raster order), else the instance's largest cluster.
///
/// Instances with fewer than twice the minimum cells stay whole. The instances' union is unchanged,
/// so the foreground mask is too.
public enum AffinitySplit {
    /// The split's thresholds (`affinity_split.py`'s `--bias` and `--min-piece`; tune them there,
    /// on the tuning set only).
    public struct Parameters: Sendable, Hashable {
        /// Taken from each repulsive pair's weight `1 − a`, 0…1: the higher, the fewer splits.
        public var bias: Float
        /// Clusters smaller than this share of the cell grid join a neighbour, 0…1.
        public var minimumPiece: Double

        public init(bias: Float, minimumPiece: Double) {
            self.bias = bias
            self.minimumPiece = minimumPiece
        }

        /// Throws `MaskError.invalidParameter` for a value out of its range.
        public func validate() throws {
            guard bias >= 0 && bias <= 1 else {
                throw MaskError.invalidParameter(name: "affinitySplit.bias", value: "\(bias)", expected: "0…1")
            }
            guard minimumPiece >= 0 && minimumPiece <= 1 else {
                throw MaskError.invalidParameter(name: "affinitySplit.minimumPiece", value: "\(minimumPiece)", expected: "0…1")
            }
        }
    }

    /// `labels` with each instance split into its clusters (type docs), numbered 1… by decreasing
    /// area (ties: first pixel in raster order); nil when the cues have no affinity maps or no
    /// instance splits. Label 0 (specks) stays as it is.
    /// - Precondition: `parameters` are valid (`validate()`).
    package static func split(_ labels: RunLabels, cues: InstanceCues, parameters p: Parameters) -> RunLabels? {
        guard let affinity = cues.affinity, labels.count > 0 else { return nil }
        let hc = cues.cellHeight, wc = cues.cellWidth, height = labels.height, width = labels.width
        // Each cell's label: the photo pixel at its model position.
        func positions(cells: Int, model: Int, photo: Int) -> [Int] {
            let stride = Double(model) / Double(cells)
            return (0 ..< cells).map { i in
                let p = ((Double(i) * stride + (stride - 1) / 2 + 0.5) * Double(photo) / Double(model) - 0.5).rounded(.toNearestOrEven)
                return min(max(Int(p), 0), photo - 1)
            }
        }
        let py = positions(cells: hc, model: cues.modelHeight, photo: height)
        let px = positions(cells: wc, model: cues.modelWidth, photo: width)
        var cellsOf = [[Int]](repeating: [], count: labels.count + 1)
        for i in 0 ..< hc {
            for j in 0 ..< wc { cellsOf[Int(labels.label(x: px[j], y: py[i]))].append(i * wc + j) }
        }
        let minimumCells = max(1, Int((p.minimumPiece * Double(hc) * Double(wc)).rounded(.toNearestOrEven)))
        // Per instance that splits: its clusters on the cell grid (-1 off it), each cluster's
        // indicator map (cluster-major), the largest cluster and the first new label.
        var splits: [Int: (grid: [Int32], indicators: [Float], count: Int, largest: Int32, firstNewID: Int32)] = [:]
        var nextID = Int32(labels.count + 1)
        for label in 1 ... labels.count where cellsOf[label].count >= 2 * minimumCells {
            let cells = cellsOf[label]
            var clusters = mutexWatershed(cells: cells, affinity: affinity, cellWidth: wc, cellHeight: hc, bias: p.bias)
            let count = mergeSmall(&clusters.cluster, attractive: clusters.attractive, minimumCells: minimumCells)
            guard count > 1 else { continue }
            var grid = [Int32](repeating: -1, count: hc * wc), sizes = [Int](repeating: 0, count: count)
            var indicators = [Float](repeating: 0, count: count * hc * wc)
            for (k, cell) in cells.enumerated() {
                let c = Int(clusters.cluster[k])
                grid[cell] = Int32(c)
                indicators[c * hc * wc + cell] = 1
                sizes[c] += 1
            }
            var largest = 0
            for c in sizes.indices where sizes[c] > sizes[largest] { largest = c }
            splits[label] = (grid, indicators, count, Int32(largest), nextID)
            nextID += Int32(count - 1)
        }
        guard !splits.isEmpty else { return nil }
        // Step 3 on the runs of the instances that split.
        let sampler = CellSampler(cellWidth: wc, cellHeight: hc, width: width, height: height)
        let columnCell = (0 ..< width).map { x in ((Double(x) + 0.5) * Double(wc)) / Double(width) }
        let rowCell = (0 ..< height).map { y in ((Double(y) + 0.5) * Double(hc)) / Double(height) }
        /// The cluster of pixel (x, y) of an instance: the largest bilinear indicator, else the
        /// nearest neighbour cell's, else the largest cluster.
        func cluster(x: Int, y: Int, grid: [Int32], indicators: UnsafePointer<Float>, count: Int, largest: Int32) -> Int32 {
            var best: Int32 = -1, share: Float = 0
            for c in 0 ..< count {
                let v = sampler.value(indicators + c &* hc &* wc, x: x, y: y)
                if v > share { (best, share) = (Int32(c), v) }
            }
            guard best < 0 else { return best }
            let fy = rowCell[y], fx = columnCell[x], cy = min(Int(fy), hc - 1), cx = min(Int(fx), wc - 1)
            var nearest = Double.infinity
            for ny in cy - 1 ... cy + 1 where ny >= 0 && ny < hc {
                for nx in cx - 1 ... cx + 1 where nx >= 0 && nx < wc && (ny != cy || nx != cx) {
                    let c = grid[ny * wc + nx], dy = fy - (Double(ny) + 0.5), dx = fx - (Double(nx) + 0.5)
                    if c >= 0, dy * dy + dx * dx < nearest { (best, nearest) = (c, dy * dy + dx * dx) }
                }
            }
            return best >= 0 ? best : largest
        }
        var start: [Int32] = [], end: [Int32] = [], ids: [Int32] = []
        var offsets = [Int](repeating: 0, count: height + 1)
        for y in 0 ..< height {
            for r in labels.rowOffsets[y] ..< labels.rowOffsets[y + 1] {
                let label = labels.runLabel[r]
                guard let split = splits[Int(label)] else {
                    start.append(labels.runStart[r])
                    end.append(labels.runEnd[r])
                    ids.append(label)
                    continue
                }
                split.indicators.withUnsafeBufferPointer { indicators in
                    for x in Int(labels.runStart[r]) ..< Int(labels.runEnd[r]) {
                        let c = cluster(x: x, y: y, grid: split.grid, indicators: indicators.nonEmptyBase, count: split.count,
                                        largest: split.largest)
                        let id = c == 0 ? label : split.firstNewID + c - 1
                        if ids.count > offsets[y], ids[ids.count - 1] == id, end[end.count - 1] == Int32(x) {
                            end[end.count - 1] += 1
                        } else {
                            start.append(Int32(x))
                            end.append(Int32(x + 1))
                            ids.append(id)
                        }
                    }
                }
            }
            offsets[y + 1] = start.count
        }
        return RunLabels.ranked(width: width, height: height, idCount: Int(nextID), runStart: start, runEnd: end,
                                rowOffsets: offsets, runLabel: ids)
    }

    /// Step 1 on one instance's `cells` (cell indices, raster order): each cell's cluster 0… (by
    /// first cell) and the attractive pairs `(u, v, weight)` as indices into `cells`, in map then
    /// raster order.
    private static func mutexWatershed(cells: [Int], affinity: [FloatMap], cellWidth wc: Int, cellHeight hc: Int,
                                       bias: Float) -> (cluster: [Int32], attractive: [(u: Int32, v: Int32, weight: Float)]) {
        var local = [Int32](repeating: -1, count: hc * wc)
        for (k, cell) in cells.enumerated() { local[cell] = Int32(k) }
        var pairs: [(u: Int32, v: Int32, weight: Float, repulsive: Bool)] = []
        for (map, (dy, dx)) in zip(affinity, InstanceCues.affinityOffsets) {
            let repulsive = max(dy, dx) > 1
            for y in 0 ..< max(hc - dy, 0) {
                for x in 0 ..< max(wc - dx, 0) {
                    let u = local[y * wc + x], v = local[(y + dy) * wc + x + dx]
                    guard u >= 0, v >= 0 else { continue }
                    let a = map.values[y * wc + x]
                    pairs.append((u, v, repulsive ? 1 - a - bias : a, repulsive))
                }
            }
        }
        let order = pairs.indices.sorted { pairs[$0].weight != pairs[$1].weight ? pairs[$0].weight > pairs[$1].weight : $0 < $1 }
        var parent = (0 ..< cells.count).map { Int32($0) }
        var mutex = [Set<Int32>](repeating: [], count: cells.count)  // per root: the roots it must not join
        func root(_ i: Int32) -> Int32 {
            var i = i
            while parent[Int(i)] != i {
                parent[Int(i)] = parent[Int(parent[Int(i)])]
                i = parent[Int(i)]
            }
            return i
        }
        for e in order {
            let pair = pairs[e]
            guard pair.weight > 0 else { break }
            let a = root(pair.u), b = root(pair.v)
            guard a != b else { continue }
            if pair.repulsive {
                mutex[Int(a)].insert(b)
                mutex[Int(b)].insert(a)
            } else if !mutex[Int(a)].contains(b) {
                parent[Int(b)] = a
                for m in mutex[Int(b)] {
                    mutex[Int(m)].remove(b)
                    mutex[Int(m)].insert(a)
                }
                mutex[Int(a)].formUnion(mutex[Int(b)])
                mutex[Int(b)] = []
            }
        }
        return (firstSeen((0 ..< cells.count).map { root(Int32($0)) }),
                pairs.filter { !$0.repulsive }.map { ($0.u, $0.v, $0.weight) })
    }

    /// Step 2: clusters under `minimumCells` joined to a neighbour (type docs), then renumbered 0… by
    /// first cell. Returns the number of clusters.
    private static func mergeSmall(_ cluster: inout [Int32], attractive: [(u: Int32, v: Int32, weight: Float)],
                                   minimumCells: Int) -> Int {
        let idCount = Int(cluster.max() ?? -1) + 1
        var counts = [Int](repeating: 0, count: idCount)
        for c in cluster { counts[Int(c)] += 1 }
        var pull = [Double](repeating: 0, count: idCount)
        while true {
            let present = counts.indices.filter { counts[$0] > 0 }
            guard present.count > 1, let small = present.min(by: { (counts[$0], $0) < (counts[$1], $1) }),
                  counts[small] < minimumCells else { break }
            for i in pull.indices { pull[i] = 0 }
            for pair in attractive {
                let cu = Int(cluster[Int(pair.u)]), cv = Int(cluster[Int(pair.v)])
                if (cu == small) != (cv == small) { pull[cu == small ? cv : cu] += Double(pair.weight) }
            }
            var target = 0
            for c in pull.indices where pull[c] > pull[target] { target = c }
            if pull[target] <= 0 {  // no attraction to any other cluster: the largest other one
                target = present.filter { $0 != small }.min(by: { (-counts[$0], $0) < (-counts[$1], $1) })!
            }
            for k in cluster.indices where cluster[k] == Int32(small) { cluster[k] = Int32(target) }
            counts[target] += counts[small]
            counts[small] = 0
        }
        cluster = firstSeen(cluster)
        return Int(cluster.max() ?? -1) + 1
    }

    /// `values` renumbered 0… in the order each first appears.
    private static func firstSeen(_ values: [Int32]) -> [Int32] {
        var number: [Int32: Int32] = [:]
        return values.map { v in
            if let n = number[v] { return n }
            number[v] = Int32(number.count)
            return Int32(number.count - 1)
        }
    }
}
