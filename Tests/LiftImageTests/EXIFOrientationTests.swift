import LiftImage
import Testing

/// A TIFF structure with one IFD0 entry: the orientation tag with `value`.
private func exif(orientation value: Int, littleEndian: Bool) -> [UInt8] {
    func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 255), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 255)] }
    func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
    let order: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
    return order + u16(42) + u32(8) + u16(2)
        + u16(0x010F) + u16(2) + u32(4) + u32(0)  // Make, an unrelated entry first
        + u16(0x0112) + u16(3) + u32(1) + u16(value) + u16(0)
        + u32(0)
}

@Test(arguments: 1 ... 8)
func exifOrientationParsesBothByteOrders(_ value: Int) {
    #expect(EXIFOrientation(exif: exif(orientation: value, littleEndian: true)).rawValue == value)
    #expect(EXIFOrientation(exif: exif(orientation: value, littleEndian: false)).rawValue == value)
}

@Test func exifOrientationIgnoresMalformedData() {
    #expect(EXIFOrientation(exif: []) == .up)
    #expect(EXIFOrientation(exif: exif(orientation: 9, littleEndian: true)) == .up)
    #expect(EXIFOrientation(exif: exif(orientation: 0, littleEndian: false)) == .up)
    #expect(EXIFOrientation(exif: Array("XX*\0\0\0\0\u{8}".utf8)) == .up)
    // Every truncation of a valid structure is bounds-checked.
    let full = exif(orientation: 6, littleEndian: true)
    for length in 0 ..< 32 { // the value ends at byte 32
        #expect(EXIFOrientation(exif: Array(full[..<length])) == .up)
    }
    // An IFD offset pointing far outside the data.
    var farIFD = full
    farIFD[4] = 0xFF; farIFD[5] = 0xFF; farIFD[6] = 0xFF; farIFD[7] = 0x7F
    #expect(EXIFOrientation(exif: farIFD) == .up)
}

/// A 3x2 image whose pixel (x, y) has red = x, green = y.
private let sample = RGBAImage(width: 3, height: 2, pixels: (0 ..< 2).flatMap { y in (0 ..< 3).flatMap { x in [UInt8(x), UInt8(y), 0, 255] } })

private func position(_ image: RGBAImage, _ x: Int, _ y: Int) -> (Int, Int) {
    let i = (y * image.width + x) * 4
    return (Int(image.pixels[i]), Int(image.pixels[i + 1]))
}

@Test func exifOrientationMovesCornersAsThePictureNeeds() {
    // Where stored pixel (0, 0) (the stored top-left) ends up, for each orientation.
    let expectations: [(EXIFOrientation, width: Int, corner: (Int, Int))] = [
        (.up, 3, (0, 0)), (.upMirrored, 3, (2, 0)), (.down, 3, (2, 1)), (.downMirrored, 3, (0, 1)),
        (.leftMirrored, 2, (0, 0)), (.right, 2, (1, 0)), (.rightMirrored, 2, (1, 2)), (.left, 2, (0, 2)),
    ]
    for (orientation, width, corner) in expectations {
        let out = orientation.apply(to: sample)
        #expect(out.width == width && out.width * out.height == 6, "\(orientation)")
        #expect(position(out, corner.0, corner.1) == (0, 0), "\(orientation)")
    }
}

@Test func exifOrientationInversePairsRoundTrip() {
    #expect(EXIFOrientation.left.apply(to: EXIFOrientation.right.apply(to: sample)) == sample)
    for o in [EXIFOrientation.upMirrored, .down, .downMirrored, .leftMirrored, .rightMirrored] {
        #expect(o.apply(to: o.apply(to: sample)) == sample, "\(o)")
    }
}

@Test func exifOrientationHandlesEmptyImages() {
    let empty = RGBAImage(width: 0, height: 5, pixels: [])
    let turned = EXIFOrientation.right.apply(to: empty)
    #expect(turned.width == 5 && turned.height == 0 && turned.pixels.isEmpty)
}
