/// The encoder's quantisation tables: the Annex K.1 examples scaled by a 1...100 quality the way
/// libjpeg's `jpeg_set_quality` does, and the reciprocal divisors libjpeg-turbo's `quantize` uses,
/// so that quantised coefficients match libjpeg-turbo's bit for bit.
struct JPEGQuantizationTable {
    /// The 64 quantiser steps in natural (row-major) order, each in 1...255 (baseline).
    let steps: [UInt16]

    /// Annex K.1, table K.1: luminance steps for quality 50, natural order.
    static let standardLuminance: [UInt16] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// Annex K.1, table K.2: chrominance steps for quality 50, natural order.
    static let standardChrominance: [UInt16] = [
        17, 18, 24, 47, 99, 99, 99, 99,
        18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99,
        47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// libjpeg's `jpeg_quality_scaling`: the percentage the quality-50 tables are scaled by
    /// (5000 / q below 50, 200 - 2q from 50 on; q = 100 gives 0, i.e. every step 1).
    static func scaleFactor(quality: Int) -> Int {
        let q = min(max(quality, 1), 100)
        return q < 50 ? 5000 / q : 200 - q * 2
    }

    /// `base` scaled as libjpeg's `jpeg_add_quant_table` with `force_baseline`: `(step * scale + 50) / 100`,
    /// clamped to 1...255.
    init(base: [UInt16], quality: Int) {
        let scale = Self.scaleFactor(quality: quality)
        steps = base.map { UInt16(min(max((Int($0) * scale + 50) / 100, 1), 255)) }
    }

    /// The divisors of libjpeg-turbo's `compute_reciprocal` for `steps`, as the forward DCT needs them.
    var divisors: JPEGQuantizationDivisors { JPEGQuantizationDivisors(steps: steps) }
}

/// Per-coefficient reciprocals that turn a rounded division by `8 * step` (the islow forward DCT's
/// output is scaled by 8) into a multiply and a shift: `|x| → ((|x| + correction) * reciprocal) >> shift`,
/// libjpeg-turbo's `compute_reciprocal` exactly.
struct JPEGQuantizationDivisors {
    /// 192 values: the 64 reciprocals, then the 64 corrections, then the 64 shifts, each in natural
    /// order (the layout `JPEGForwardDCT.block` reads). A reciprocal is `floor(2^shift / divisor)`,
    /// rounded up when the remainder is above half the divisor; a correction is half the divisor,
    /// plus one when the remainder is at most half; a shift is `16 + floor(log2(divisor))`, one less
    /// when the divisor is a power of two.
    let packed: [UInt32]

    init(steps: [UInt16]) {
        precondition(steps.count == 64, "a quantisation table has 64 steps")
        var packed = [UInt32](repeating: 0, count: 192)
        for (i, step) in steps.enumerated() {
            let divisor = UInt32(step) &* 8
            var shift = UInt32(16 + 31 - divisor.leadingZeroBitCount)
            var reciprocal = (UInt64(1) << shift) / UInt64(divisor)
            let remainder = (UInt64(1) << shift) % UInt64(divisor)
            var correction = divisor / 2
            if remainder == 0 {
                // A power of two: the quotient would need 17 bits, so halve it and the shift.
                reciprocal >>= 1
                shift -= 1
            } else if remainder <= UInt64(divisor / 2) {
                correction += 1
            } else {
                reciprocal += 1
            }
            packed[i] = UInt32(reciprocal)
            packed[64 + i] = correction
            packed[128 + i] = shift
        }
        self.packed = packed
    }
}
