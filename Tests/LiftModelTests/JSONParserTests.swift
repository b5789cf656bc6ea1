import Foundation
@_spi(Testing) import LiftModel
import Testing
import TestSupport

@Suite struct JSONParserTests {
    private func parse(_ text: String) -> Result<JSONValue, JSONParseFailure> {
        JSONParser.parse(Array(text.utf8))
    }

    private func value(_ text: String) throws -> JSONValue {
        try parse(text).get()
    }

    /// The failure message for `bytes`, or nil when they parsed.
    private func failure(_ bytes: [UInt8]) -> String? {
        if case .failure(let failure) = JSONParser.parse(bytes) { return failure.message }
        return nil
    }

    @Test func parsesEveryKindOfValue() throws {
        #expect(try value(" {\"a\": [1, -2, 3.5, -0.25e1, 1E2, true, false, null], \"b\": {}, \"c\": [] } ") == .object([
            "a": .array([.int(1), .int(-2), .double(3.5), .double(-2.5), .double(100), .bool(true), .bool(false), .null]),
            "b": .object([:]), "c": .array([]),
        ]))
        #expect(try value("0") == .int(0))
        #expect(try value("-0") == .int(0))
        #expect(try value("-9223372036854775808") == .int(Int.min))
        #expect(try value("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try value("\t\r\n\"x\"\n") == .string("x"))
    }

    @Test func decodesEscapesAndUnicode() throws {
        #expect(try value(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try value(#""\u00e9\u4e2D\ud83d\ude00\u0000""#) == .string("é中😀\u{0}"))
        #expect(try value("\"é中😀\"") == .string("é中😀"))
    }

    @Test(arguments: [
        ("", "at byte 0: expected a value, found the end"),
        ("{\"a\":1,}", "at byte 7: expected a member name"),
        ("[1 2]", "at byte 3: expected ',' or ']'"),
        ("[1,]", "at byte 3: expected a value"),
        ("{\"a\" 1}", "at byte 5: expected ':'"),
        ("{\"a\":1,\"a\":2}", "at byte 7: duplicate member name \"a\""),
        ("{\"a\":1", "at byte 6: unterminated object"),
        ("[1] x", "at byte 4: unexpected 'x' after the document"),
        ("01", "at byte 0: a number may not have leading zeros"),
        ("1.", "at byte 2: expected a digit after '.'"),
        ("1e+", "at byte 3: expected a digit in the exponent"),
        ("-", "at byte 1: expected a digit"),
        ("+1", "at byte 0: expected a value, found '+'"),
        ("1e999", "at byte 0: number 1e999 is out of range"),
        ("tru", "at byte 0: expected 'true'"),
        ("nul", "at byte 0: expected 'null'"),
        ("NaN", "at byte 0: expected a value, found 'N'"),
        ("\"abc", "at byte 0: unterminated string"),
        ("\"a\u{01}\"", "at byte 2: control character 0x1"),
        (#""\x""#, #"at byte 1: invalid escape '\x'"#),
        (#""\u12g4""#, "at byte 5: expected four hex digits"),
        (#""\ud800""#, "at byte 1: unpaired UTF-16 surrogate"),
        (#""\ud800\u0041""#, "at byte 1: unpaired UTF-16 surrogate"),
        (#""\udc00""#, "at byte 1: unpaired UTF-16 surrogate"),
        ("'a'", "at byte 0: expected a value, found '''"),
    ])
    func refusesMalformedDocuments(text: String, expected: String) {
        let message = failure(Array(text.utf8))
        #expect(message?.hasPrefix(expected) == true, "\(text): \(message ?? "parsed")")
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(failure([0x22, 0xFF, 0x22])?.hasPrefix("at byte 0: the string is not valid UTF-8") == true)
        #expect(failure([0x22, 0xED, 0xA0, 0x80, 0x22]) != nil, "an encoded surrogate is not UTF-8")
        let limit = JSONParser.maximumDepth
        #expect(failure(Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)) == nil)
        let deep = failure(Array((String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)).utf8))
        #expect(deep == "at byte \(limit): nested deeper than \(limit) levels")
        // Far deeper than any stack could recurse: refused at the limit, not a crash.
        #expect(failure(Array(String(repeating: "{\"a\":", count: 100_000).utf8)) != nil)
    }

    /// Random documents written with random whitespace and escapes parse back to the values they were
    /// written from.
    @Test func roundTripsRandomDocuments() throws {
        var rng = SeededGenerator(seed: 7)
        for _ in 0 ..< 300 {
            let original = Self.randomValue(depth: 0, &rng)
            let text = Self.write(original, &rng)
            #expect(try JSONParser.parse(Array(text.utf8)).get() == original, "\(text)")
        }
    }

    /// Mutated documents never crash the parser, and whatever it accepts Foundation's parser accepts
    /// too (it is the stricter of the two).
    @Test func mutatedDocumentsFailCleanly() throws {
        var rng = SeededGenerator(seed: 11)
        var accepted = 0
        for _ in 0 ..< 2000 {
            var bytes = Array(Self.write(Self.randomValue(depth: 0, &rng), &rng).utf8)
            for _ in 0 ... Int.random(in: 0 ... 2, using: &rng) where !bytes.isEmpty {
                let at = Int.random(in: 0 ..< bytes.count, using: &rng)
                switch Int.random(in: 0 ..< 3, using: &rng) {
                case 0: bytes[at] = Self.interesting.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(Self.interesting.randomElement(using: &rng)!, at: at)
                }
            }
            if case .success = JSONParser.parse(bytes) {
                accepted += 1
                #expect((try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil,
                        "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(accepted > 100 && accepted < 1900, "the mutations should both keep and break documents (\(accepted))")
    }

    /// The shipped subject model's header, parsed as the loader does, holds every tensor and the graph.
    @Test func parsesTheShippedModelHeader() throws {
        let bytes = try [UInt8](Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Weights/subject.safetensors")))
        let length = bytes[0 ..< 8].reversed().reduce(0) { $0 << 8 | Int($1) }
        let header = try #require(try JSONParser.parse(bytes[8 ..< 8 + length]).get().objectValue)
        let metadata = try #require(header["__metadata__"]?.objectValue)
        let graph = try #require(metadata["lift.graph"]?.stringValue)
        let nodes = try #require(try JSONParser.parse(Array(graph.utf8)).get().objectValue?["nodes"]?.arrayValue)
        #expect(nodes.count > 50, "a U-Net of dozens of layers")
        // Every tensor the header lists is a weight some node names, and every named weight is listed.
        var named = Set<String>()
        for node in nodes {
            for (_, tensor) in node.objectValue?["weights"]?.objectValue ?? [:] {
                named.insert(try #require(tensor.stringValue))
            }
        }
        #expect(named == Set(header.keys.filter { $0 != "__metadata__" }))
    }

    private static let interesting: [UInt8] = Array("{}[],:\"\\0123456789.eE+-tfnu \u{7F}".utf8) + [0x00, 0x1F, 0xC3, 0xFF]

    private static func randomValue(depth: Int, _ rng: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0 ..< (depth < 4 ? 8 : 6), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int.random(in: -1_000_000 ... 1_000_000, using: &rng))
        case 3: return .double(Double(Int.random(in: -99999 ... 99999, using: &rng)) / 64)
        case 4, 5: return .string(randomString(&rng))
        case 6: return .array((0 ..< Int.random(in: 0 ... 4, using: &rng)).map { _ in randomValue(depth: depth + 1, &rng) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0 ..< Int.random(in: 0 ... 4, using: &rng) { members[randomString(&rng)] = randomValue(depth: depth + 1, &rng) }
            return .object(members)
        }
    }

    private static func randomString(_ rng: inout SeededGenerator) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "中", "😀", "\u{7F}"]
        return String(String.UnicodeScalarView((0 ..< Int.random(in: 0 ... 6, using: &rng)).map { _ in pool.randomElement(using: &rng)! }))
    }

    /// JSON text for `value`, with random whitespace and randomly `\u`-escaped characters.
    private static func write(_ value: JSONValue, _ rng: inout SeededGenerator) -> String {
        let space = [" ", "", "\n", "\t", "\r\n"].randomElement(using: &rng)!
        switch value {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .int(let i): return String(i)
        case .double(let d): return Bool.random(using: &rng) ? String(d) : String(format: "%.17e", d)
        case .string(let s): return quoted(s, &rng)
        case .array(let items): return "[" + space + items.map { write($0, &rng) }.joined(separator: "," + space) + "]"
        case .object(let members):
            return "{" + members.map { quoted($0.key, &rng) + space + ":" + write($0.value, &rng) }.joined(separator: space + ",") + space + "}"
        }
    }

    private static func quoted(_ text: String, _ rng: inout SeededGenerator) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" || scalar.value < 0x20 || Bool.random(using: &rng) && Int.random(in: 0 ..< 4, using: &rng) == 0 {
                for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
