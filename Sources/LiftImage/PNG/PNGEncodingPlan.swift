/// How the encoder lays out an image's samples in the file: colour type, bit depth, which source channels
/// go where, and the palette for indexed images. Built once per image; `packRow` then writes scanlines.
struct PNGEncodingPlan {
    let colorType: PNGColorType
    let bitDepth: Int
    /// For each file channel, the source channel it comes from (grey, grey+alpha, RGB, RGBA plans).
    let channelMap: [Int]
    /// Palette entries as RGBA (palette plans only), the ones with alpha < 255 first.
    let palette: [SIMD4<UInt8>]
    private let paletteIndex: PNGColorTable

    /// The plan that writes the source exactly as laid out (no reduction).
    init(keeping layout: PNGSamples.Layout, depth: Int) {
        colorType = layout.colorType
        bitDepth = depth
        channelMap = Array(0..<layout.channels)
        palette = []
        paletteIndex = PNGColorTable()
    }

    /// The smallest lossless layout for 8-bit `samples`: grey (at 1, 2, 4 or 8 bits) when every pixel is
    /// grey, no alpha channel when every pixel is opaque, a palette when there are at most 256 colours and
    /// that takes fewer bits per pixel. `allowGray: false` keeps colour sources in a colour type (an
    /// RGB colour profile is not allowed on grey PNGs); `keepGrayType: true` keeps grey images out of
    /// a palette (a GRAY profile is allowed only on grey colour types).
    init(reducing samples: UnsafeBufferPointer<UInt8>, layout: PNGSamples.Layout, allowGray: Bool = true,
         keepGrayType: Bool = false) {
        var survey = PNGColorSurvey(channels: layout.channels, allowGray: allowGray)
        survey.add(samples)
        self.init(survey: survey, layout: layout, keepGrayType: keepGrayType)
    }

    /// The smallest lossless layout for the samples `survey` has seen (see `init(reducing:…)`).
    init(survey: PNGColorSurvey, layout: PNGSamples.Layout, keepGrayType: Bool = false) {
        let channels = layout.channels
        let isGray = survey.isGray, isOpaque = survey.isOpaque, colors = survey.colors
        let values = (0..<256).filter { survey.redSeen[$0] }
        let grayDepth = values.allSatisfy { $0 % 255 == 0 } ? 1 : values.allSatisfy { $0 % 85 == 0 } ? 2 : values.allSatisfy { $0 % 17 == 0 } ? 4 : 8
        let direct: (PNGColorType, Int, [Int], bitsPerPixel: Int)
        switch (isGray, isOpaque) {
        case (true, true): direct = (.gray, grayDepth, [0], grayDepth)
        case (true, false): direct = (.grayAlpha, 8, [0, channels - 1], 16)
        case (false, true): direct = (.rgb, 8, [0, 1, 2], 24)
        case (false, false): direct = (.rgba, 8, [0, 1, 2, 3], 32)
        }
        if !colors.isFull, !(keepGrayType && isGray) {
            let count = colors.entries.count
            let depth = count <= 2 ? 1 : count <= 4 ? 2 : count <= 16 ? 4 : 8
            if depth < direct.bitsPerPixel {
                colorType = .palette
                bitDepth = depth
                channelMap = []
                palette = colors.entries.filter { $0.w < 255 } + colors.entries.filter { $0.w == 255 }
                var index = PNGColorTable()
                for entry in palette { index.insert(entry) }
                paletteIndex = index
                return
            }
        }
        (colorType, bitDepth, channelMap) = (direct.0, direct.1, direct.2)
        palette = []
        paletteIndex = PNGColorTable()
    }

    /// The smallest lossless 16-bit layout for `samples` (grey when every pixel is grey, no alpha when
    /// every pixel is opaque); samples that fit 8 bits are reduced by the caller first. `allowGray`:
    /// as for 8-bit samples.
    init(reducing16 samples: UnsafeBufferPointer<UInt16>, layout: PNGSamples.Layout, allowGray: Bool = true) {
        let channels = layout.channels
        var isGray = allowGray || channels < 3, isOpaque = true, i = 0
        while i < samples.count {
            if channels >= 3 && (samples[i] != samples[i &+ 1] || samples[i] != samples[i &+ 2]) { isGray = false }
            if (channels == 2 || channels == 4) && samples[i &+ channels &- 1] != 65535 { isOpaque = false }
            i &+= channels
        }
        switch (isGray, isOpaque) {
        case (true, true): (colorType, channelMap) = (.gray, [0])
        case (true, false): (colorType, channelMap) = (.grayAlpha, [0, channels - 1])
        case (false, true): (colorType, channelMap) = (.rgb, [0, 1, 2])
        case (false, false): (colorType, channelMap) = (.rgba, [0, 1, 2, 3])
        }
        bitDepth = 16
        palette = []
        paletteIndex = PNGColorTable()
    }

    /// Writes one row of 8-bit source samples (`channels` per pixel) as a packed scanline to `out`.
    func packRow(_ source: UnsafePointer<UInt8>, width: Int, channels: Int, into out: UnsafeMutablePointer<UInt8>) {
        if colorType == .palette {
            packIndices(width: width, into: out) { x in
                let s = source + x &* channels
                let r = s[0], g = channels >= 3 ? s[1] : r, b = channels >= 3 ? s[2] : r
                let a = channels == 2 || channels == 4 ? s[channels &- 1] : 255
                return paletteIndex.index(of: SIMD4(r, g, b, a))
            }
        } else if bitDepth < 8 {
            let step = UInt8(255 / ((1 << bitDepth) - 1))
            packIndices(width: width, into: out) { x in source[x &* channels] / step }
        } else if channelMap.count == channels {
            out.update(from: source, count: width &* channels)
        } else {
            let map = channelMap, n = map.count
            for x in 0..<width {
                for k in 0..<n { out[x &* n &+ k] = source[x &* channels &+ map[k]] }
            }
        }
    }

    /// Writes row samples of a 16-bit source as big-endian pairs (16-bit plans only).
    func packRow16(_ source: UnsafePointer<UInt16>, width: Int, channels: Int, into out: UnsafeMutablePointer<UInt8>) {
        let map = channelMap, n = map.count
        for x in 0..<width {
            for k in 0..<n {
                let v = source[x &* channels &+ map[k]], o = (x &* n &+ k) &* 2
                out[o] = UInt8(truncatingIfNeeded: v >> 8)
                out[o &+ 1] = UInt8(truncatingIfNeeded: v)
            }
        }
    }

    /// Packs `width` values of `bitDepth` bits (1, 2, 4 or 8), most significant first.
    @inline(__always)
    private func packIndices(width: Int, into out: UnsafeMutablePointer<UInt8>, value: (Int) -> UInt8) {
        if bitDepth == 8 {
            for x in 0..<width { out[x] = value(x) }
            return
        }
        let perByte = 8 / bitDepth
        var x = 0, o = 0
        while x < width {
            var byte: UInt8 = 0
            for k in 0..<perByte {
                byte |= (x &+ k < width ? value(x &+ k) : 0) << (8 &- bitDepth &* (k &+ 1))
            }
            out[o] = byte
            o &+= 1
            x &+= perByte
        }
    }
}

/// What the smallest-layout choice needs to know about an image's 8-bit samples, gathered a row (or
/// any run of whole pixels) at a time: whether every pixel is grey, whether every one is opaque, which
/// red values occur, and up to 256 colours.
struct PNGColorSurvey {
    let channels: Int
    /// Every pixel seen is grey (R = G = B), or the source has no colour; false when grey is not allowed.
    private(set) var isGray: Bool
    /// Every pixel seen has alpha 255 (or the source has no alpha).
    private(set) var isOpaque = true
    /// Which sample values the first channel takes (the grey bit depth follows from them).
    private(set) var redSeen = [Bool](repeating: false, count: 256)
    /// The colours seen, up to 256.
    private(set) var colors = PNGColorTable()
    /// The last colour added to the table: runs of one colour (masks, flat areas) look it up once.
    private var last: SIMD4<UInt8>?

    /// A survey of nothing yet; `allowGray: false` keeps colour sources in a colour type.
    init(channels: Int, allowGray: Bool) {
        self.channels = channels
        isGray = allowGray || channels < 3
    }

    /// True once more samples cannot change the layout: neither grey nor (unless `opaqueKnown`, the
    /// caller's guarantee that every pixel is opaque) opaque, and too many colours for a palette.
    func isSettled(opaqueKnown: Bool) -> Bool {
        !isGray && colors.isFull && (opaqueKnown || !isOpaque)
    }

    /// Adds whole pixels (`samples.count` a multiple of `channels`).
    mutating func add(_ samples: UnsafeBufferPointer<UInt8>) {
        let channels = channels
        var last = last ?? SIMD4<UInt8>(samples.first ?? 0, 0, 0, 0) &+ 1
        var i = 0
        while i < samples.count {
            let r = samples[i], g = channels >= 3 ? samples[i &+ 1] : r, b = channels >= 3 ? samples[i &+ 2] : r
            let a = channels == 2 || channels == 4 ? samples[i &+ channels &- 1] : 255
            if r != g || r != b { isGray = false }
            if a != 255 { isOpaque = false }
            redSeen[Int(r)] = true
            let color = SIMD4(r, g, b, a)
            if color != last && !colors.isFull {
                colors.insert(color)
                last = color
            }
            i &+= channels
        }
        self.last = last
    }
}

/// A small open-addressing set of up to 256 RGBA colours, remembering first-seen order and each one's index.
struct PNGColorTable {
    private var keys = [UInt32](repeating: 0, count: 1024)
    private var slots = [Int16](repeating: -1, count: 1024)
    /// Colours in insertion order.
    private(set) var entries: [SIMD4<UInt8>] = []
    /// True once a 257th colour was seen (the table then stops growing).
    private(set) var isFull = false

    @inline(__always)
    private static func key(_ c: SIMD4<UInt8>) -> UInt32 {
        UInt32(c.x) | UInt32(c.y) << 8 | UInt32(c.z) << 16 | UInt32(c.w) << 24
    }

    @inline(__always)
    private func slot(for key: UInt32) -> Int {
        var s = Int((key &* 0x9E37_79B1) >> 22)
        while slots[s] >= 0 && keys[s] != key { s = (s &+ 1) & 1023 }
        return s
    }

    /// Adds `color` if new; marks the table full instead of adding a 257th colour.
    mutating func insert(_ color: SIMD4<UInt8>) {
        let k = Self.key(color), s = slot(for: k)
        guard slots[s] < 0 else { return }
        guard entries.count < 256 else { isFull = true; return }
        keys[s] = k
        slots[s] = Int16(entries.count)
        entries.append(color)
    }

    /// The index of a colour known to be in the table.
    @inline(__always)
    func index(of color: SIMD4<UInt8>) -> UInt8 {
        let s = slot(for: Self.key(color))
        precondition(slots[s] >= 0, "the palette holds every colour of the image")
        return UInt8(truncatingIfNeeded: slots[s])
    }
}
