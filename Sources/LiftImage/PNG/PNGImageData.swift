import CZlib
import LiftParallel

/// Filters a PNG's rows and deflates them into the zlib stream its IDAT chunks carry, in segments of
/// 256 KiB compressed on several threads at once (pigz's scheme: with zlib each segment primed with
/// the 32 KiB before it, ended with a sync flush; checksums joined with `adler32_combine`).
///
/// The segmentation depends only on the image, never on the thread count, so the output bytes are the
/// same for 1 and N threads; it costs a few bytes per segment against one serial stream.
struct PNGImageData {
    /// What deflates the segments.
    enum Compressor: Equatable {
        /// zlib at a level 0...9 with a strategy constant (`PNGDeflater`).
        case zlib(level: Int, strategy: Int32)
        /// Lift's own fpnge-style deflate (`PNGFastDeflater`): literals and runs of zeros, one Huffman
        /// code per segment, no dictionary.
        case fast
    }

    /// Filtered bytes per segment (rounded to whole rows, at least one row).
    static let segmentBytes = 256 << 10
    /// deflate's window: how much data before a segment primes its compressor.
    static let window = 32 << 10

    /// Rows, and bytes per row without the filter-type byte.
    let height: Int, rowBytes: Int
    /// Bytes per complete pixel (at least 1), the distance the Sub/Average/Paeth filters look back.
    let bpp: Int
    /// Adaptive filter choice (minimum sum of absolute residuals), else `fixedFilter` on every row.
    let adaptive: Bool
    let fixedFilter: UInt8
    let compressor: Compressor

    /// Returns the zlib stream in pieces, one per segment (the first with the zlib header, the last with
    /// the Adler-32 trailer): the payloads of the IDAT chunks, in order.
    /// - Parameters:
    ///   - threads: worker threads (each claims the next segment when done with one: a segment of
    ///     transparent rows deflates many times faster than one of photo rows).
    ///   - packRow: writes raw row `y` (`rowBytes` bytes) to the pointer; called from several threads
    ///     at once and for some rows twice, so it must be a pure function of `y`.
    func deflate(threads: Int, packRow: (Int, UnsafeMutablePointer<UInt8>) -> Void) throws(PNGEncodingError) -> [[UInt8]] {
        let stride = rowBytes + 1
        let segmentRows = max(1, Self.segmentBytes / stride)
        let dictionaryRows = compressor == .fast ? 0 : (Self.window + stride - 1) / stride
        let count = (height + segmentRows - 1) / segmentRows
        var pieces = [[UInt8]](repeating: [], count: count)
        var checksums = [(adler: UInt, length: Int)](repeating: (1, 0), count: count)
        var failures = [PNGEncodingError?](repeating: nil, count: count)
        pieces.withUnsafeMutableBufferPointer { pieces in
            checksums.withUnsafeMutableBufferPointer { checksums in
                failures.withUnsafeMutableBufferPointer { failures in
                    Parallel.claimEach(count: count, threads: threads) { claim in
                        guard let firstSegment = claim() else { return }
                        let rows = min(segmentRows, height) + min(dictionaryRows, height)
                        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * rowBytes + rows * stride)
                        defer { scratch.deallocate() }
                        var deflater: PNGDeflater?
                        if case .zlib(let level, let strategy) = compressor {
                            do throws(PNGEncodingError) {
                                deflater = try PNGDeflater(level: level, strategy: strategy)
                            } catch {
                                failures[firstSegment] = error
                                return
                            }
                        }
                        var next: Int? = firstSegment
                        while let s = next {
                            let start = s * segmentRows, end = min(start + segmentRows, height)
                            let first = start - min(dictionaryRows, start)
                            filterRows(first..<end, scratch: scratch, into: scratch + 2 * rowBytes, packRow: packRow)
                            let filtered = scratch + 2 * rowBytes
                            let before = (start - first) * stride
                            let segment = UnsafeBufferPointer(start: filtered + before, count: (end - start) * stride)
                            let primed = min(before, Self.window)
                            let dictionary = UnsafeBufferPointer(start: filtered + before - primed, count: primed)
                            if let deflater {
                                do throws(PNGEncodingError) {
                                    pieces[s] = try deflater.compress(segment, dictionary: dictionary, final: s == count - 1)
                                } catch {
                                    failures[s] = error
                                    return
                                }
                            } else {
                                pieces[s] = PNGFastDeflater.compress(segment, pixelBytes: bpp, final: s == count - 1)
                            }
                            checksums[s] = (UInt(Adler32.checksum(segment)), segment.count)
                            next = claim()
                        }
                    }
                }
            }
        }
        if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
        var adler = checksums[0].adler
        for c in checksums.dropFirst() { adler = adler32_combine(adler, c.adler, c.length) }
        pieces[0].insert(contentsOf: zlibHeader, at: 0)
        pieces[count - 1] += [UInt8(adler >> 24 & 0xFF), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return pieces
    }

    /// The two zlib header bytes zlib itself writes: deflate, 32 KiB window, its level hint (the fast
    /// compressor's is zlib's "fastest"), no dictionary.
    private var zlibHeader: [UInt8] {
        var hint: UInt16 = 0
        if case .zlib(let level, let strategy) = compressor {
            hint = strategy >= Z_HUFFMAN_ONLY || level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        }
        var header: UInt16 = 0x7800 | hint << 6
        header += 31 - header % 31
        return [UInt8(header >> 8), UInt8(header & 0xFF)]
    }

    /// Writes rows `rows`, each as its filter-type byte and residuals, one after another to `out`.
    /// `scratch` holds 2 rows: the raw previous and current rows.
    private func filterRows(_ rows: Range<Int>, scratch: UnsafeMutablePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                            packRow: (Int, UnsafeMutablePointer<UInt8>) -> Void) {
        var previous = scratch, current = scratch + rowBytes
        if rows.lowerBound == 0 {
            previous.initialize(repeating: 0, count: rowBytes)
        } else {
            packRow(rows.lowerBound - 1, previous)
        }
        for (i, y) in rows.enumerated() {
            packRow(y, current)
            let row = out + i * (rowBytes + 1)
            let type = adaptive ? PNGRowFilter.choose(row: current, previous: previous, count: rowBytes, bpp: bpp) : fixedFilter
            PNGRowFilter.apply(type, row: current, previous: previous, count: rowBytes, bpp: bpp, out: row + 1)
            row[0] = type
            swap(&previous, &current)
        }
    }
}
