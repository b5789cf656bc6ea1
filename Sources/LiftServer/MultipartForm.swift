/// A `multipart/form-data` body (RFC 7578), as browsers and rembg's clients send a file with fields.
package struct MultipartForm: Sendable {
    /// One part: its field name, the file name when it is a file, its type, and its bytes.
    package struct Part: Sendable {
        package var name: String
        package var filename: String?
        package var contentType: String?
        package var data: ArraySlice<UInt8>
    }

    /// The parts in order.
    package var parts: [Part]

    /// The first part named `name`.
    package func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// The boundary of a `multipart/form-data; boundary=…` content type, or nil for another type.
    /// - Throws: 400 for `multipart/form-data` without a boundary of 1–70 bytes (its body could not
    ///   be split into fields).
    package static func boundary(contentType: String) throws(HTTPError) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingASCIISpaces }
        guard let type = pieces.first, type.caseInsensitiveEquals("multipart/form-data") else { return nil }
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingASCIISpaces.caseInsensitiveEquals("boundary") else { continue }
            var value = pair[1].trimmingASCIISpaces
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if (1...70).contains(value.utf8.count) { return value }
        }
        throw HTTPError(.badRequest, "a multipart/form-data body needs a boundary parameter of 1 to 70 characters in its Content-Type",
                        closesConnection: false)
    }

    /// Parses `body` delimited by `boundary`.
    /// - Throws: 400 naming what is malformed.
    package init(body: [UInt8], boundary: String) throws(HTTPError) {
        let delimiter = Array("--\(boundary)".utf8)
        let malformed = { (what: String) in HTTPError(.badRequest, "malformed multipart/form-data body: \(what)", closesConnection: false) }
        guard var position = Self.find(delimiter, in: body, from: 0) else { throw malformed("no boundary line") }
        var parts: [Part] = []
        while true {
            position += delimiter.count
            if body.count >= position + 2, body[position] == 45, body[position + 1] == 45 { break }   // "--": the last boundary
            // The rest of the boundary line (transport padding) up to its line end.
            guard let lineEnd = body[position...].firstIndex(of: 10) else { throw malformed("a boundary line does not end") }
            position = lineEnd + 1
            var part = Part(name: "", filename: nil, contentType: nil, data: [])
            var named = false
            while true {
                guard let end = body[position...].firstIndex(of: 10) else { throw malformed("a part's headers do not end") }
                var line = body[position..<end]
                if line.last == 13 { line = line.dropLast() }
                position = end + 1
                if line.isEmpty { break }
                let text = String(decoding: line, as: UTF8.self)
                guard let colon = text.firstIndex(of: ":") else { throw malformed("a part header has no ':'") }
                let name = text[..<colon].trimmingASCIISpaces
                let value = text[text.index(after: colon)...].trimmingASCIISpaces
                if name.caseInsensitiveEquals("Content-Disposition") {
                    let parameters = Self.parameters(value)
                    guard let fieldName = parameters["name"] else { throw malformed("a part has no field name") }
                    part.name = fieldName
                    part.filename = parameters["filename"]
                    named = true
                } else if name.caseInsensitiveEquals("Content-Type") {
                    part.contentType = value
                }
            }
            guard named else { throw malformed("a part has no Content-Disposition header") }
            guard let next = Self.find(Array("\r\n".utf8) + delimiter, in: body, from: position) else { throw malformed("a part does not end with the boundary") }
            part.data = body[position..<next]
            parts.append(part)
            position = next + 2
        }
        self.parts = parts
    }

    /// `form-data; name="file"; filename="a b.jpg"` → ["name": "file", "filename": "a b.jpg"].
    private static func parameters(_ value: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(value)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].trimmingASCIISpaces.lowercased()
            rest = rest[rest.index(after: equals)...]
            if rest.first == "\"" {
                var text = ""
                var index = rest.index(after: rest.startIndex)
                while index < rest.endIndex, rest[index] != "\"" {
                    if rest[index] == "\\", rest.index(after: index) < rest.endIndex { index = rest.index(after: index) }
                    text.append(rest[index])
                    index = rest.index(after: index)
                }
                result[key] = text
                rest = index < rest.endIndex ? rest[rest.index(after: index)...] : rest[rest.endIndex...]
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                result[key] = rest[..<end].trimmingASCIISpaces
                rest = rest[end...]
            }
        }
        return result
    }

    /// The first index at or after `from` where `needle` occurs in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { bytes -> Int? in
            var index = from
            let last = bytes.count - needle.count
            while index <= last {
                if bytes[index] == first, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return index }
                index += 1
            }
            return nil
        }
    }
}
