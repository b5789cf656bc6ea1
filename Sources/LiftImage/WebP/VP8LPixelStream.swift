/// Which prefix code group decodes each pixel of a main lossless image: the entropy image's tiles of
/// `1 << bits` pixels square, each naming a group by bits 8…23 of its pixel (RFC 9649 §3.7.2.2).
struct VP8LGroupMap {
    /// log2 of the tile size in pixels.
    let bits: Int
    /// Tiles per row.
    let columns: Int
    /// The group index of each tile, row-major.
    let tiles: [Int32]
    /// One more than the largest group index named.
    let groupCount: Int
    /// Whether some tile names each group index.
    let used: [Bool]

    /// The map of an entropy image `columns` tiles wide whose pixels are `groups`.
    init(bits: Int, columns: Int, groups: [UInt32]) {
        self.bits = bits
        self.columns = columns
        tiles = groups.map { Int32(($0 >> 8) & 0xFFFF) }
        groupCount = Int(tiles.max() ?? 0) + 1
        var used = [Bool](repeating: false, count: groupCount)
        for tile in tiles { used[Int(tile)] = true }
        self.used = used
    }

    /// The group index for pixel (`x`, `y`).
    @inline(__always)
    func group(x: Int, y: Int) -> Int {
        Int(tiles[(y &>> bits) &* columns &+ (x &>> bits)])
    }
}

/// The pixel loop of an entropy-coded image (RFC 9649 §5.2): each symbol of the green code is a
/// literal (followed by red, blue, alpha), a backward-reference length prefix (followed by a
/// distance) or a colour-cache index. Every pixel, however produced, enters the colour cache in order.
struct VP8LPixelStream {
    let width: Int
    let pixelCount: Int
    let cacheBits: Int
    let groupMap: VP8LGroupMap?

    /// The neighbourhood that distance codes 1…120 name, as (columns left, rows up) of the current pixel.
    static let nearDistances: [(Int, Int)] = [
        (0, 1), (1, 0), (1, 1), (-1, 1), (0, 2), (2, 0), (1, 2), (-1, 2),
        (2, 1), (-2, 1), (2, 2), (-2, 2), (0, 3), (3, 0), (1, 3), (-1, 3),
        (3, 1), (-3, 1), (2, 3), (-2, 3), (3, 2), (-3, 2), (0, 4), (4, 0),
        (1, 4), (-1, 4), (4, 1), (-4, 1), (3, 3), (-3, 3), (2, 4), (-2, 4),
        (4, 2), (-4, 2), (0, 5), (3, 4), (-3, 4), (4, 3), (-4, 3), (5, 0),
        (1, 5), (-1, 5), (5, 1), (-5, 1), (2, 5), (-2, 5), (5, 2), (-5, 2),
        (4, 4), (-4, 4), (3, 5), (-3, 5), (5, 3), (-5, 3), (0, 6), (6, 0),
        (1, 6), (-1, 6), (6, 1), (-6, 1), (2, 6), (-2, 6), (6, 2), (-6, 2),
        (4, 5), (-4, 5), (5, 4), (-5, 4), (3, 6), (-3, 6), (6, 3), (-6, 3),
        (0, 7), (7, 0), (1, 7), (-1, 7), (5, 5), (-5, 5), (7, 1), (-7, 1),
        (4, 6), (-4, 6), (6, 4), (-6, 4), (2, 7), (-2, 7), (7, 2), (-7, 2),
        (3, 7), (-3, 7), (7, 3), (-7, 3), (5, 6), (-5, 6), (6, 5), (-6, 5),
        (8, 0), (4, 7), (-4, 7), (7, 4), (-7, 4), (8, 1), (8, 2), (6, 6),
        (-6, 6), (8, 3), (5, 7), (-5, 7), (7, 5), (-7, 5), (8, 4), (6, 7),
        (-6, 7), (7, 6), (-7, 6), (8, 5), (7, 7), (-7, 7), (8, 6), (8, 7),
    ]

    /// The colour cache's multiplicative hash constant.
    static let cacheMultiplier: UInt32 = 0x1E35_A7BD

    /// Decodes `pixelCount` pixels into `out`.
    /// - Throws: `.invalidBackwardReference` for a copy from before the first pixel or past the last,
    ///   `.truncatedLosslessData` when the stream runs out.
    func decode(_ reader: inout VP8LBitReader, into out: UnsafeMutablePointer<UInt32>, entries: UnsafePointer<UInt32>,
                groups: UnsafeBufferPointer<VP8LPrefixCodeGroup>) throws(WebPError) {
        let cacheSize = cacheBits > 0 ? 1 << cacheBits : 0
        let cache = UnsafeMutablePointer<UInt32>.allocate(capacity: max(cacheSize, 1))
        cache.initialize(repeating: 0, count: max(cacheSize, 1))
        defer { cache.deallocate() }
        let cacheShift = UInt32(32 - cacheBits)
        let tileMask = groupMap.map { (1 << $0.bits) - 1 } ?? 0
        var position = 0, x = 0, y = 0, cached = 0
        var group = groups[groupMap?.group(x: 0, y: 0) ?? 0]
        while position < pixelCount {
            if let groupMap, x & tileMask == 0 { group = groups[groupMap.group(x: x, y: y)] }
            reader.refill()
            let code = group.green.read(&reader, entries)
            if code < 256 {
                reader.refill()
                let red = group.red.read(&reader, entries)
                let blue = group.blue.read(&reader, entries)
                reader.refill()
                let alpha = group.alpha.read(&reader, entries)
                out[position] = UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(code) << 8 | UInt32(blue)
                position &+= 1
                x &+= 1
            } else if code < VP8LPrefixCodeGroup.greenLiteralsAndLengths {
                let length = Self.prefixedValue(code - 256, &reader)
                reader.refill()
                let distanceCode = Self.prefixedValue(group.distance.read(&reader, entries), &reader)
                let distance = distance(code: distanceCode)
                guard distance <= position, length <= pixelCount - position else {
                    throw .invalidBackwardReference(pixel: position, distance: distance, length: length)
                }
                for i in position ..< position &+ length { out[i] = out[i &- distance] }
                position &+= length
                x &+= length
                if x >= width {
                    y &+= x / width
                    x %= width
                }
                if let groupMap, position < pixelCount { group = groups[groupMap.group(x: x, y: y)] }
                continue
            } else {
                while cached < position {
                    cache[Int((out[cached] &* Self.cacheMultiplier) &>> cacheShift)] = out[cached]
                    cached &+= 1
                }
                out[position] = cache[code &- VP8LPrefixCodeGroup.greenLiteralsAndLengths]
                position &+= 1
                x &+= 1
            }
            if x == width {
                x = 0
                y &+= 1
                if reader.isPastEnd { throw .truncatedLosslessData }
            }
        }
        if reader.isPastEnd { throw .truncatedLosslessData }
    }

    /// A length or distance from its prefix symbol and extra bits (RFC 9649 §5.2.2).
    @inline(__always)
    static func prefixedValue(_ prefix: Int, _ reader: inout VP8LBitReader) -> Int {
        if prefix < 4 { return prefix + 1 }
        let extraBits = (prefix - 2) >> 1
        let offset = (2 + (prefix & 1)) << extraBits
        return offset + reader.read(extraBits) + 1
    }

    /// The distance in pixels a distance code names: codes 1…120 are the near neighbourhood, larger
    /// ones count back by `code - 120`.
    @inline(__always)
    func distance(code: Int) -> Int {
        guard code <= 120 else { return code - 120 }
        let (dx, dy) = Self.nearDistances[code - 1]
        return max(dx + dy * width, 1)
    }
}
