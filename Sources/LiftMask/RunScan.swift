/// The runs of one row band, with union-find parents in band-local run indices.
final class BandRuns: @unchecked Sendable {
    // @unchecked: each band is written by exactly one worker, then read after the parallel loop.
    var start: UnsafeMutablePointer<Int32>
    var end: UnsafeMutablePointer<Int32>
    var parent: UnsafeMutablePointer<Int32>
    var count = 0
    private var capacity = 0

    init() {
        start = .allocate(capacity: 0)
        end = .allocate(capacity: 0)
        parent = .allocate(capacity: 0)
    }

    deinit {
        start.deallocate()
        end.deallocate()
        parent.deallocate()
    }

    /// Makes room for `extra` more runs.
    private func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let newCapacity = max(count + extra, capacity * 2, 1024)
        for keyPath in [\BandRuns.start, \BandRuns.end, \BandRuns.parent] {
            let grown = UnsafeMutablePointer<Int32>.allocate(capacity: newCapacity)
            grown.update(from: self[keyPath: keyPath], count: count)
            self[keyPath: keyPath].deallocate()
            self[keyPath: keyPath] = grown
        }
        capacity = newCapacity
    }

    /// Scans `rows` of the mask (`pixels(y)`: row `y`'s bytes), storing each row's run count in
    /// `rowCounts[y]` and unioning runs of consecutive rows inside the band.
    func scan(width: Int, rows: Range<Int>, background: Bool, eight: Bool, rowCounts: UnsafeMutableBufferPointer<Int>,
              pixels: (Int) -> UnsafePointer<UInt8>) {
        var previous = 0 ..< 0
        for y in rows {
            reserve(width / 2 + 1)
            let first = count
            let row = pixels(y)
            var x = 0
            while true {
                x = background ? RowScan.firstZero(row, from: x, width: width) : RowScan.firstNonzero(row, from: x, width: width)
                if x >= width { break }
                let s = x
                x = background ? RowScan.firstNonzero(row, from: x &+ 1, width: width) : RowScan.firstZero(row, from: x &+ 1, width: width)
                start[count] = Int32(truncatingIfNeeded: s)
                end[count] = Int32(truncatingIfNeeded: x)
                parent[count] = Int32(truncatingIfNeeded: count)
                count &+= 1
            }
            let current = first ..< count
            RunUnion.unionRows(start: start, end: end, parent: parent, above: previous, current: current, eight: eight)
            rowCounts[y] = current.count
            previous = current
        }
    }
}

/// Word-at-a-time byte searches in one mask row.
enum RowScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Index of the first non-zero byte in `row[from..<width]`, or `width`.
    @inline(__always)
    static func firstNonzero(_ row: UnsafePointer<UInt8>, from: Int, width: Int) -> Int {
        var x = from
        let raw = UnsafeRawPointer(row)
        while x &+ 32 <= width {
            let w0 = raw.loadUnaligned(fromByteOffset: x, as: UInt64.self)
            let w1 = raw.loadUnaligned(fromByteOffset: x &+ 8, as: UInt64.self)
            let w2 = raw.loadUnaligned(fromByteOffset: x &+ 16, as: UInt64.self)
            let w3 = raw.loadUnaligned(fromByteOffset: x &+ 24, as: UInt64.self)
            if (w0 | w1 | w2 | w3) != 0 { break }
            x &+= 32
        }
        while x &+ 8 <= width {
            let w = raw.loadUnaligned(fromByteOffset: x, as: UInt64.self)
            if w != 0 { return x &+ (UInt64(littleEndian: w).trailingZeroBitCount &>> 3) }
            x &+= 8
        }
        while x < width && row[x] == 0 { x &+= 1 }
        return x
    }

    /// Index of the first zero byte in `row[from..<width]`, or `width`.
    @inline(__always)
    static func firstZero(_ row: UnsafePointer<UInt8>, from: Int, width: Int) -> Int {
        var x = from
        let raw = UnsafeRawPointer(row)
        while x &+ 32 <= width {
            let w0 = raw.loadUnaligned(fromByteOffset: x, as: UInt64.self)
            let w1 = raw.loadUnaligned(fromByteOffset: x &+ 8, as: UInt64.self)
            let w2 = raw.loadUnaligned(fromByteOffset: x &+ 16, as: UInt64.self)
            let w3 = raw.loadUnaligned(fromByteOffset: x &+ 24, as: UInt64.self)
            if (zeroBytes(w0) | zeroBytes(w1) | zeroBytes(w2) | zeroBytes(w3)) != 0 { break }
            x &+= 32
        }
        while x &+ 8 <= width {
            let z = zeroBytes(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: x, as: UInt64.self)))
            if z != 0 { return x &+ (z.trailingZeroBitCount &>> 3) }
            x &+= 8
        }
        while x < width && row[x] != 0 { x &+= 1 }
        return x
    }

    /// High bit set in the lowest zero byte of `w` (higher bits may be false positives).
    @inline(__always)
    private static func zeroBytes(_ w: UInt64) -> UInt64 { (w &- ones) & ~w & highs }
}

/// Union-find over runs: roots are always the smallest run index of their set.
enum RunUnion {
    /// The root of `i`, halving the path on the way.
    @inline(__always)
    static func find(_ parent: UnsafeMutablePointer<Int32>, _ i: Int32) -> Int32 {
        var i = i
        while parent[Int(i)] != i {
            let grand = parent[Int(parent[Int(i)])]
            parent[Int(i)] = grand
            i = grand
        }
        return i
    }

    /// Joins the sets of `a` and `b`, the larger root pointing to the smaller.
    @inline(__always)
    static func union(_ parent: UnsafeMutablePointer<Int32>, _ a: Int32, _ b: Int32) {
        let ra = find(parent, a), rb = find(parent, b)
        if ra < rb { parent[Int(rb)] = ra } else if rb < ra { parent[Int(ra)] = rb }
    }

    /// Unions every run of `current` with the runs of `above` it touches (edge-touching for
    /// 4-connectivity, also corner-touching for 8). Both ranges index runs sorted by column.
    @inline(__always)
    static func unionRows(start: UnsafePointer<Int32>, end: UnsafePointer<Int32>, parent: UnsafeMutablePointer<Int32>,
                          above: Range<Int>, current: Range<Int>, eight: Bool) {
        var i = current.lowerBound, j = above.lowerBound
        let slack: Int32 = eight ? 1 : 0
        while i < current.upperBound && j < above.upperBound {
            let ci = start[i], ce = end[i], ai = start[j], ae = end[j]
            if ci < ae &+ slack && ai < ce &+ slack { union(parent, Int32(truncatingIfNeeded: i), Int32(truncatingIfNeeded: j)) }
            if ce < ae { i &+= 1 } else if ae < ce { j &+= 1 } else { i &+= 1; j &+= 1 }
        }
    }
}
