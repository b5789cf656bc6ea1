import LiftParallel

extension PNGEncoder {
    /// Encodes an 8-bit image that is made row by row and never held whole (a composite rendered as
    /// the compressor needs it): the file is byte-identical to `encode(_:options:)` of all the rows.
    ///
    /// With `options.reduceColorType` the rows are first surveyed from the top until the layout is
    /// settled (for a photo, within the first rows that hold varied colour), then every row is made
    /// again as the segments are filtered and deflated.
    /// - Parameters:
    ///   - width, height: size in pixels.
    ///   - layout: the samples `row` writes per pixel.
    ///   - opaqueKnown: the caller guarantees every alpha sample is 255, so the survey can stop
    ///     before the last row even for an opaque image.
    ///   - row: writes row `y`'s `width × layout.channels` samples to the pointer. It is called from
    ///     several threads at once and for some rows more than once, so it must be a pure function of `y`.
    public static func encode(width: Int, height: Int, layout: PNGSamples.Layout, options: Options = .standard,
                              opaqueKnown: Bool = false, row: (Int, UnsafeMutablePointer<UInt8>) -> Void) throws -> [UInt8] {
        guard (0...9).contains(options.level) else { throw PNGEncodingError.invalidCompressionLevel(options.level) }
        guard options.fixedFilter <= 4 else { throw PNGEncodingError.invalidFilterType(options.fixedFilter) }
        let channels = layout.channels
        let (rowSamples, overflow) = width.multipliedReportingOverflow(by: channels)
        guard width >= 1, height >= 1, width <= Int(Int32.max), height <= Int(Int32.max), !overflow else {
            throw PNGEncodingError.invalidDimensions(width: width, height: height)
        }
        let plan: PNGEncodingPlan
        if options.reduceColorType {
            let profileSpace = options.metadata.iCCP.map { PNGColorProfile.colorSpace(ofChunk: $0) ?? .other }
            var survey = PNGColorSurvey(channels: channels, allowGray: profileSpace != .rgb)
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: rowSamples)
            defer { buffer.deallocate() }
            for y in 0 ..< height {
                row(y, buffer)
                survey.add(UnsafeBufferPointer(start: buffer, count: rowSamples))
                if survey.isSettled(opaqueKnown: opaqueKnown || channels == 1 || channels == 3) { break }
            }
            plan = PNGEncodingPlan(survey: survey, layout: layout, keepGrayType: profileSpace == .gray)
        } else {
            plan = PNGEncodingPlan(keeping: layout, depth: 8)
        }
        if plan.colorType == layout.colorType && plan.bitDepth == 8 {
            // The layout is kept: rows go straight into the filter's buffer.
            return try write(plan: plan, width: width, height: height, options: options, packRow: row)
        }
        return try write(plan: plan, width: width, height: height, options: options) { y, out in
            let samples = UnsafeMutablePointer<UInt8>.allocate(capacity: rowSamples)
            defer { samples.deallocate() }
            row(y, samples)
            plan.packRow(samples, width: width, channels: channels, into: out)
        }
    }
}
