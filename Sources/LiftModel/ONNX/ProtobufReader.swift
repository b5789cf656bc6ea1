/// Reads the protocol-buffer wire format (the encoding of `.onnx` files) from bytes in memory, one
/// field at a time, with every length checked against the bytes left before anything is sliced or
/// allocated. Only what ONNX uses: varints (wire type 0), 64-bit (1), length-delimited (2) and
/// 32-bit (5) fields; groups (3, 4) are refused. Offsets in errors are from the start of the file.
struct ProtobufReader {
    /// One field's value as the wire carries it.
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(Range<Int>)
        case fixed32(UInt32)
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// Where the next field starts.
    private(set) var position: Int
    /// Where this message ends (exclusive).
    let end: Int

    /// A reader over `range` of `bytes` (a whole message, or one nested in another).
    init(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    /// The next field's number and value, or nil at the end of the message.
    /// - Throws: `ONNXError.malformed` for a truncated or invalid field.
    mutating func next() throws(ONNXError) -> (field: Int, value: Value)? {
        guard position < end else { return nil }
        let start = position
        let key = try varint()
        let field = Int(key >> 3)
        guard field > 0, key >> 3 <= 0x1FFF_FFFF else { throw .malformed(offset: start, reason: "field number \(key >> 3) is not valid") }
        switch key & 7 {
        case 0: return (field, .varint(try varint()))
        case 1: return (field, .fixed64(try fixed(8)))
        case 2:
            let length = try varint()
            guard length <= UInt64(end - position) else {
                throw .malformed(offset: start, reason: "field \(field) claims \(length) bytes, but \(end - position) remain")
            }
            let range = position ..< position + Int(length)
            position = range.upperBound
            return (field, .bytes(range))
        case 5: return (field, .fixed32(UInt32(truncatingIfNeeded: try fixed(4))))
        default: throw .malformed(offset: start, reason: "field \(field) has wire type \(key & 7), which ONNX never uses")
        }
    }

    /// The bytes of `range` (from a `.bytes` value) as an array.
    func copy(_ range: Range<Int>) -> [UInt8] { Array(bytes[range]) }

    /// The bytes of `range` as UTF-8 text (invalid sequences replaced, as names are only shown and compared).
    func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// A reader for the message nested in `range`.
    func nested(_ range: Range<Int>) -> ProtobufReader { ProtobufReader(bytes, range: range) }

    /// The varints packed in `range` (a packed repeated field), at most `limit` of them.
    func packedVarints(_ range: Range<Int>, limit: Int, what: String) throws(ONNXError) -> [UInt64] {
        var reader = nested(range)
        var values: [UInt64] = []
        while reader.position < reader.end {
            guard values.count < limit else { throw .limitExceeded(what: what, limit: limit) }
            values.append(try reader.varint())
        }
        return values
    }

    /// A base-128 varint of at most 10 bytes.
    private mutating func varint() throws(ONNXError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = position
        while true {
            guard position < end else { throw .malformed(offset: start, reason: "a number runs past the end of its message") }
            let byte = bytes[position]
            position += 1
            guard shift < 64, shift < 63 || byte <= 1 else { throw .malformed(offset: start, reason: "a number is longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A little-endian fixed-width value of `count` bytes (4 or 8).
    private mutating func fixed(_ count: Int) throws(ONNXError) -> UInt64 {
        guard end - position >= count else { throw .malformed(offset: position, reason: "a \(count)-byte value runs past the end of its message") }
        var value: UInt64 = 0
        for index in 0 ..< count { value |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
        position += count
        return value
    }
}
