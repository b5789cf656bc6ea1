/// Builds flat (all mid-grey) JPEG files with any list of scans, for tests of the scan rules and the
/// decoding budgets: every coefficient is zero, so each scan's entropy-coded data is only DC
/// category 0, refinement bits 0 and end-of-band runs, whatever the frame's size. Components have
/// 1×1 sampling and share one quantisation table (all ones) and one DC and one AC Huffman table.
public enum JPEGBytes {
    /// One scan: components (1-based frame positions), spectral band and successive approximation.
    public struct Scan: Sendable {
        public var components: [Int]
        public var start: Int, end: Int, high: Int, low: Int

        public init(components: [Int] = [1], start: Int, end: Int, high: Int = 0, low: Int = 0) {
            self.components = components
            self.start = start
            self.end = end
            self.high = high
            self.low = low
        }

        /// A sequential scan of `components`.
        public static func sequential(_ components: [Int] = [1]) -> Scan { Scan(components: components, start: 0, end: 63) }
    }

    /// The standard progression of a flat frame of `components` components: DC first (Al 1) and
    /// refinement, then per component AC 1…63 first (Al 1) and refinement.
    public static func validProgression(components: Int = 1) -> [Scan] {
        let all = Array(1 ... components)
        return [Scan(components: all, start: 0, end: 0, low: 1), Scan(components: all, start: 0, end: 0, high: 1)]
            + all.flatMap { [Scan(components: [$0], start: 1, end: 63, low: 1), Scan(components: [$0], start: 1, end: 63, high: 1)] }
    }

    /// A whole file: SOI, DQT, SOF2 (or SOF0 when not `progressive`), DHT, the scans, EOI.
    public static func file(width: Int, height: Int, components: Int = 1, progressive: Bool = true, scans: [Scan]) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xDB, [0] + Array(repeating: 1, count: 64))
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 255), UInt8(width >> 8), UInt8(width & 255), UInt8(components)]
        for id in 1 ... components { frame += [UInt8(id), 0x11, 0] }
        bytes += segment(progressive ? 0xC2 : 0xC0, frame)
        // DC: category 0 is "0". AC: end of band is "0", a 14-bit end-of-band run "10".
        bytes += segment(0xC4, [0x00, 1] + Array(repeating: 0, count: 15) + [0x00])
        bytes += segment(0xC4, [0x10, 1, 1] + Array(repeating: 0, count: 14) + [0x00, 0xE0])
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        for scan in scans {
            var header: [UInt8] = [UInt8(scan.components.count)]
            for id in scan.components { header += [UInt8(id), 0x00] }
            header += [UInt8(scan.start), UInt8(scan.end), UInt8(scan.high << 4 | scan.low)]
            bytes += segment(0xDA, header)
            bytes += entropyData(scan, blocks: blocks * scan.components.count, progressive: progressive)
        }
        return bytes + [0xFF, 0xD9]
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 255)] + payload
    }

    /// The coded data of `scan` over `blocks` blocks of zeros, padded with ones and byte-stuffed.
    private static func entropyData(_ scan: Scan, blocks: Int, progressive: Bool) -> [UInt8] {
        var bits: [Bool] = []
        if !progressive {
            bits = Array(repeating: false, count: 2 * blocks)  // DC category 0, end of block
        } else if scan.start == 0 {
            bits = Array(repeating: false, count: blocks)  // DC category 0, or a refinement bit 0
        } else {
            var left = blocks
            while left >= 1 << 14 {
                let run = min(left, (1 << 15) - 1)
                bits += [true, false] + (0 ..< 14).map { (run - (1 << 14)) >> (13 - $0) & 1 == 1 }
                left -= run
            }
            bits += Array(repeating: false, count: left)
        }
        while bits.count % 8 != 0 { bits.append(true) }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: bits.count, by: 8) {
            let byte = (0 ..< 8).reduce(UInt8(0)) { $0 << 1 | (bits[index + $1] ? 1 : 0) }
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0) }
        }
        return bytes
    }
}
