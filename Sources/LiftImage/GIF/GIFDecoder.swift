/// The canvas size and frame count of a GIF, read without decoding any pixels.
public struct GIFInfo: Sendable, Equatable {
    /// Canvas size in pixels: the logical screen, enlarged to hold the first frame if it reaches
    /// past it.
    public let width: Int
    public let height: Int
    /// Images in the file (1 for a still GIF).
    public let frameCount: Int

    /// Info from its parts.
    public init(width: Int, height: Int, frameCount: Int) {
        self.width = width
        self.height = height
        self.frameCount = frameCount
    }
}

/// Decodes GIF87a/GIF89a files to RGBA8: the first frame by default, or frame `n` composited over
/// frames 0...n-1 the way browsers show an animation at that frame.
///
/// The canvas is the logical screen, enlarged to hold the first frame when that frame reaches past
/// it (as Chromium and Pillow do); later frames are clipped to it. It starts transparent (with the
/// colour of the first frame's transparent index when it has one, as Pillow leaves it). Each frame
/// draws its non-transparent pixels; before the next frame, disposal 2 clears the frame's area to
/// transparent and disposal 3 restores what was there before it. A frame whose LZW data ends before
/// it is full is an error, as in Pillow (browsers draw the part they have).
///
/// Against Pillow's `Image.open(f).convert("RGBA")`, frame 0 is bit-exact except where the first frame
/// leaves part of the canvas uncovered and has no transparent index (Pillow paints colour 0 there,
/// opaque; Lift and browsers leave it transparent). Later frames differ where Pillow departs from
/// browsers: it keeps a frame's disposal for following frames that say "unspecified", restores
/// disposal-2 areas to the opaque background colour when the frame has no transparent index, keeps
/// a first frame whose disposal is 3 (browsers restore the empty canvas), and grows the canvas for
/// later frames too.
///
/// Work is bounded before it is done: the canvas against `DecodingLimits` and the memory budget,
/// each frame's declared area against `maxPixels`, the indices decoded over all frames up to the
/// one asked for against `maxInflatedBytes`, and the frame number against `maxFrames`.
public enum GIFDecoder {
    /// The highest frame count a frame number may reach (frame `maxFrames - 1` at most).
    public static let maxFrames = 10_000

    /// Decodes frame `frame` (0: the first) of a whole GIF file.
    /// - Returns: the canvas at that frame, RGBA8, straight alpha.
    /// - Throws: `GIFError` naming the part and byte offset of the problem.
    public static func decode(_ bytes: [UInt8], frame: Int = 0, limits: DecodingLimits = .default) throws(GIFError) -> RGBAImage {
        guard frame < maxFrames else { throw .limitExceeded(what: "frame number", value: frame, limit: maxFrames - 1) }
        guard frame >= 0 else { throw .frameOutOfRange(requested: frame, frameCount: try readInfo(bytes).frameCount) }
        var reader = try GIFBlockReader(bytes)
        guard let first = try reader.nextFrame(withData: true) else { throw .noImage(offset: reader.position) }
        let width = max(reader.screenWidth, first.left + first.width)
        let height = max(reader.screenHeight, first.top + first.height)
        try checkCanvas(width: width, height: height, limits: limits)
        var canvas = GIFCanvas(width: width, height: height,
                               background: first.transparentIndex.map { first.palette.colors[$0] & 0x00FF_FFFF } ?? 0)
        var current = first
        var decodedIndices = 0
        for index in 0 ... frame {
            if index > 0 {
                guard let next = try reader.nextFrame(withData: true) else {
                    throw .frameOutOfRange(requested: frame, frameCount: index)
                }
                current = next
            }
            let area = current.width * current.height
            decodedIndices += area
            guard area <= limits.maxPixels else { throw .limitExceeded(what: "frame \(index)'s pixel count", value: area, limit: limits.maxPixels) }
            guard decodedIndices <= limits.maxInflatedBytes else {
                throw .limitExceeded(what: "pixel count of frames 0...\(index)", value: decodedIndices, limit: limits.maxInflatedBytes)
            }
            let saved = index < frame && current.disposal == 3 ? canvas.copy(of: current) : nil
            try draw(current, on: &canvas)
            if index < frame {
                if current.disposal == 2 { canvas.clear(current) }
                if let saved { canvas.restore(saved, of: current) }
            }
        }
        return canvas.image
    }

    /// The canvas size and the number of frames, from the blocks alone.
    public static func readInfo(_ bytes: [UInt8]) throws(GIFError) -> GIFInfo {
        var reader = try GIFBlockReader(bytes)
        guard let first = try reader.nextFrame(withData: false) else { throw .noImage(offset: reader.position) }
        var count = 1
        while try reader.nextFrame(withData: false) != nil { count += 1 }
        return GIFInfo(width: max(reader.screenWidth, first.left + first.width),
                       height: max(reader.screenHeight, first.top + first.height), frameCount: count)
    }

    private static func checkCanvas(width: Int, height: Int, limits: DecodingLimits) throws(GIFError) {
        guard width > 0, height > 0 else { throw .emptyImage(width: width, height: height) }
        guard width <= limits.maxDimension, height <= limits.maxDimension else {
            throw .limitExceeded(what: "canvas dimension", value: max(width, height), limit: limits.maxDimension)
        }
        guard width * height <= limits.maxPixels else {
            throw .limitExceeded(what: "canvas pixel count", value: width * height, limit: limits.maxPixels)
        }
        guard MemoryBudget.estimate(width: width, height: height) <= limits.maxMemoryBytes else {
            throw .overMemoryBudget(width: width, height: height, budget: limits.maxMemoryBytes)
        }
    }

    /// Decodes `frame`'s LZW data and draws its non-transparent pixels on `canvas`.
    private static func draw(_ frame: GIFFrame, on canvas: inout GIFCanvas) throws(GIFError) {
        guard (2 ... 8).contains(frame.codeSize) else {
            throw .invalidCodeSize(frame: frame.index, offset: frame.offset, codeSize: frame.codeSize)
        }
        let decoded: Int
        do {
            decoded = try GIFLZWDecoder.decode(frame.data, minimumCodeSize: frame.codeSize, width: frame.width, height: frame.height) {
                storedRow, indices in
                let row = frame.interlaced ? interlacedRow(storedRow, height: frame.height) : storedRow
                canvas.drawRow(frame.top + row, left: frame.left, indices: indices, count: frame.width, palette: frame.palette,
                               transparentIndex: frame.transparentIndex)
            }
        } catch {
            switch error {
            case .codeNotInDictionary(let code, let next):
                throw .corruptData(frame: frame.index, offset: frame.offset, reason: "code \(code) is not in the dictionary (next free entry \(next))")
            case .stringAfterClear(let code):
                throw .corruptData(frame: frame.index, offset: frame.offset,
                                   reason: "code \(code) follows a clear code, which must be followed by a pixel index")
            }
        }
        let total = frame.width * frame.height
        if decoded < total {
            if frame.dataTruncated { throw .truncated(part: "image data of frame \(frame.index)", offset: frame.offset) }
            throw .corruptData(frame: frame.index, offset: frame.offset, reason: "the LZW data ends after \(decoded) of the frame's \(total) pixels")
        }
    }

    /// The image row of the `storedRow`-th row of an interlaced frame `height` rows high: the passes
    /// hold rows 0, 8, 16…; 4, 12…; 2, 6, 10…; 1, 3, 5….
    private static let interlacePasses = [(0, 8), (4, 8), (2, 4), (1, 2)]

    static func interlacedRow(_ storedRow: Int, height: Int) -> Int {
        var remaining = storedRow
        for (start, step) in interlacePasses {
            let rows = start < height ? (height - start + step - 1) / step : 0
            if remaining < rows { return start + remaining * step }
            remaining -= rows
        }
        preconditionFailure("stored row \(storedRow) is past the frame's \(height) rows")
    }
}
