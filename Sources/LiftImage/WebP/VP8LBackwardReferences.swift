/// The symbol stream of a lossless image for the encoder (RFC 9649 §5.2): literal pixels, colour-cache
/// hits and LZ77 copies found with a hash chain.
///
/// A token is a `UInt64`: bits 62…63 the kind (0 literal, 1 cache index, 2 copy); a literal keeps
/// its ARGB pixel in bits 0…31, a cache hit its index, a copy its length in bits 32…44 and its
/// distance code (RFC 9649 §5.2.2's plane codes 1…120, else distance + 120) in bits 0…31.
enum VP8LBackwardReferences {
    static let cacheKind: UInt64 = 1 << 62
    static let copyKind: UInt64 = 2 << 62
    /// The longest copy the format codes.
    static let maxLength = 4096
    /// The longest distance the 40 distance prefixes reach (code 1048576 minus the 120 plane codes).
    static let maxDistance = 1_048_576 - 120
    /// The shortest copy worth its length and distance codes.
    static let minLength = 3
    /// log2 of the hash table size.
    private static let hashBits = 18

    /// The tokens of `pixels` (`width` per row) with a colour cache of `cacheBits` bits (0: none),
    /// following hash chains up to `chainDepth` candidates deep at each position.
    static func tokens(_ pixels: UnsafeBufferPointer<UInt32>, width: Int, cacheBits: Int, chainDepth: Int) -> [UInt64] {
        let count = pixels.count
        guard let p = pixels.baseAddress, count > 0 else { return [] }
        var tokens: [UInt64] = []
        tokens.reserveCapacity(count / 2)
        let planeCodes = planeCodeTable(width: width)
        let head = UnsafeMutablePointer<Int32>.allocate(capacity: 1 << hashBits)
        head.initialize(repeating: -1, count: 1 << hashBits)
        let chain = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        let cacheSize = cacheBits > 0 ? 1 << cacheBits : 1
        let cache = UnsafeMutablePointer<UInt32>.allocate(capacity: cacheSize)
        cache.initialize(repeating: 0, count: cacheSize)
        defer {
            head.deallocate()
            chain.deallocate()
            cache.deallocate()
        }
        let cacheShift = UInt32(32 - cacheBits)
        @inline(__always) func hash(_ i: Int) -> Int {
            Int(((p[i] &* 0x9E37_79B1) ^ (p[i &+ 1] &* 0x85EB_CA77) &+ (p[i &+ 1] >> 7)) >> UInt32(32 - hashBits))
        }
        @inline(__always) func insert(_ i: Int) {
            guard i &+ 1 < count else { return }
            let h = hash(i)
            chain[i] = head[h]
            head[h] = Int32(i)
        }
        var i = 0
        while i < count {
            var bestLength = 0, bestDistance = 0
            if i &+ minLength <= count {
                let limit = min(maxLength, count &- i)
                var candidate = Int(head[hash(i)])
                var depth = 0
                while candidate >= 0 && depth < chainDepth && i &- candidate <= maxDistance {
                    if p[candidate &+ bestLength] == p[i &+ bestLength] {
                        var length = 0
                        while length < limit && p[candidate &+ length] == p[i &+ length] { length &+= 1 }
                        if length > bestLength {
                            bestLength = length
                            bestDistance = i &- candidate
                            if length == limit { break }
                        }
                    }
                    candidate = Int(chain[candidate])
                    depth &+= 1
                }
            }
            if bestLength >= minLength {
                let code = bestDistance < planeCodes.count && planeCodes[bestDistance] > 0 ? Int(planeCodes[bestDistance]) : bestDistance + 120
                tokens.append(copyKind | UInt64(bestLength) << 32 | UInt64(code))
                for k in i ..< i &+ bestLength {
                    insert(k)
                    if cacheBits > 0 { cache[Int((p[k] &* VP8LPixelStream.cacheMultiplier) >> cacheShift)] = p[k] }
                }
                i &+= bestLength
                continue
            }
            let pixel = p[i]
            if cacheBits > 0 {
                let key = Int((pixel &* VP8LPixelStream.cacheMultiplier) >> cacheShift)
                tokens.append(cache[key] == pixel ? cacheKind | UInt64(key) : UInt64(pixel))
                cache[key] = pixel
            } else {
                tokens.append(UInt64(pixel))
            }
            insert(i)
            i &+= 1
        }
        return tokens
    }

    /// For each distance up to the farthest plane code, the smallest plane code (1…120) naming it, 0 for none.
    static func planeCodeTable(width: Int) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 7 * width + 9)
        for (index, (dx, dy)) in VP8LPixelStream.nearDistances.enumerated().reversed() {
            let distance = max(dx + dy * width, 1)
            if distance < table.count { table[distance] = UInt8(index + 1) }
        }
        return table
    }

    /// A length or distance code as its prefix symbol, extra bit count and extra bits (RFC 9649 §5.2.2).
    @inline(__always)
    static func prefix(_ value: Int) -> (symbol: Int, extraBits: Int, extra: Int) {
        if value <= 4 { return (value - 1, 0, 0) }
        let v = value - 1
        let highest = Int.bitWidth - 1 - v.leadingZeroBitCount
        let second = (v >> (highest - 1)) & 1
        return (2 * highest + second, highest - 1, v & ((1 << (highest - 1)) - 1))
    }
}
