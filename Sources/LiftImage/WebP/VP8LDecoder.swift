/// Decodes lossless (VP8L) bitstreams to ARGB pixels (RFC 9649 §3): the header, the transforms, and
/// the entropy-coded images (prefix code groups, LZ77 backward references, the colour cache).
///
/// Pixels are `UInt32` ARGB (alpha in bits 24…31, blue in 0…7), the format's own layout.
struct VP8LDecoder {
    var reader: VP8LBitReader
    let limits: DecodingLimits

    /// The signature byte that starts a `VP8L` chunk.
    static let signature: UInt8 = 0x2F
    /// Size of the header: signature, 14-bit width - 1, 14-bit height - 1, alpha hint, 3-bit version.
    static let headerSize = 5

    /// The header of a `VP8L` chunk.
    struct Header: Equatable {
        var width: Int
        var height: Int
        /// The encoder's hint that some alpha is below 255 (not used for decoding).
        var alphaIsUsed: Bool
    }

    /// Reads the header at the start of `data`.
    /// - Throws: `.truncatedLosslessData` (under 5 bytes), `.badLosslessSignature`, `.unknownLosslessVersion`.
    static func readHeader(_ data: UnsafeBufferPointer<UInt8>) throws(WebPError) -> Header {
        guard data.count >= headerSize else { throw .truncatedLosslessData }
        guard data[0] == signature else { throw .badLosslessSignature(data[0]) }
        var reader = VP8LBitReader(UnsafeBufferPointer(rebasing: data[1 ..< headerSize]))
        let width = reader.read(14) + 1, height = reader.read(14) + 1
        let alpha = reader.readFlag()
        let version = reader.read(3)
        guard version == 0 else { throw .unknownLosslessVersion(version) }
        return Header(width: width, height: height, alphaIsUsed: alpha)
    }

    /// A decoder reading the image stream in `data` (after the header, or an `ALPH` chunk's stream).
    init(_ data: UnsafeBufferPointer<UInt8>, limits: DecodingLimits) {
        reader = VP8LBitReader(data)
        self.limits = limits
    }

    /// Decodes the image stream of a `width × height` image: its transforms, then the main entropy-coded
    /// image, then the inverse transforms in reverse order.
    /// - Returns: `width * height` ARGB pixels, row-major.
    mutating func decodeImage(width: Int, height: Int) throws(WebPError) -> [UInt32] {
        var transforms: [VP8LTransform] = []
        var codedWidth = width
        var seen = Set<Int>()
        while reader.readFlag() {
            let type = reader.read(2)
            guard seen.insert(type).inserted else { throw .repeatedTransform(type: type) }
            let transform = try readTransform(type: type, width: codedWidth, height: height)
            if case .colorIndexing(_, let widthBits, _) = transform { codedWidth = VP8LTransform.subsampled(codedWidth, bits: widthBits) }
            transforms.append(transform)
        }
        var pixels = try decodeEntropyCodedImage(width: codedWidth, height: height, isMain: true)
        for transform in transforms.reversed() {
            transform.applyInverse(to: &pixels, height: height)
        }
        return pixels
    }

    /// Reads the data of a transform of `type` for an image `width` pixels wide (before this transform).
    private mutating func readTransform(type: Int, width: Int, height: Int) throws(WebPError) -> VP8LTransform {
        switch type {
        case 0, 1:
            let bits = reader.read(3) + 2
            let data = try decodeEntropyCodedImage(width: VP8LTransform.subsampled(width, bits: bits),
                                                   height: VP8LTransform.subsampled(height, bits: bits), isMain: false)
            return type == 0 ? .predictor(bits: bits, modes: data, width: width) : .color(bits: bits, elements: data, width: width)
        case 2:
            return .subtractGreen
        default:
            let colors = reader.read(8) + 1
            let widthBits = colors > 16 ? 0 : colors > 4 ? 1 : colors > 2 ? 2 : 3
            let deltas = try decodeEntropyCodedImage(width: colors, height: 1, isMain: false)
            // Entries past the table (up to 256) stay transparent black, what out-of-range indices give.
            var palette = [UInt32](repeating: 0, count: 256)
            var previous: UInt32 = 0
            for (i, delta) in deltas.enumerated() {
                previous = VP8LTransform.addPixels(previous, delta)
                palette[i] = previous
            }
            return .colorIndexing(palette: palette, widthBits: widthBits, width: width)
        }
    }

    /// Decodes an entropy-coded image: colour cache size, (for the main image) the entropy image of
    /// prefix code group indices, the groups, then the pixels.
    mutating func decodeEntropyCodedImage(width: Int, height: Int, isMain: Bool) throws(WebPError) -> [UInt32] {
        var cacheBits = 0
        if reader.readFlag() {
            cacheBits = reader.read(4)
            guard (1 ... 11).contains(cacheBits) else { throw .invalidColorCacheBits(cacheBits) }
        }
        var groupMap: VP8LGroupMap?
        var groupCount = 1
        var used: [Bool]?
        if isMain && reader.readFlag() {
            let bits = reader.read(3) + 2
            let entropy = try decodeEntropyCodedImage(width: VP8LTransform.subsampled(width, bits: bits),
                                                      height: VP8LTransform.subsampled(height, bits: bits), isMain: false)
            let map = VP8LGroupMap(bits: bits, columns: VP8LTransform.subsampled(width, bits: bits), groups: entropy)
            groupCount = map.groupCount
            used = map.used
            groupMap = map
        }
        // Tables: at most a quarter of the decoded bytes the limits allow, and never less than
        // what one group of the largest alphabets needs.
        var tables = VP8LPrefixTables(maxEntries: max(limits.maxInflatedBytes / 16, 1 << 20))
        let groups = try tables.readGroups(&reader, count: groupCount, cacheBits: cacheBits, used: used)
        let pixelCount = width * height
        var pixels = [UInt32](repeating: 0, count: pixelCount)
        try tables.entries.withUnsafeBufferPointer { (entries) throws(WebPError) in
            try groups.withUnsafeBufferPointer { (groups) throws(WebPError) in
                try pixels.withUnsafeMutableBufferPointer { (out) throws(WebPError) in
                    guard let entries = entries.baseAddress, let out = out.baseAddress else { return }
                    let stream = VP8LPixelStream(width: width, pixelCount: pixelCount, cacheBits: cacheBits, groupMap: groupMap)
                    try stream.decode(&reader, into: out, entries: entries, groups: groups)
                }
            }
        }
        return pixels
    }
}
