import Lift
import LiftPipeline

/// What one API request asks for, from its query string and form fields named as Lift's options
/// (`background=white&crop=true&margin=5%`) and parsed through `CutoutOption.table`, as the command
/// line is, so a value means and is refused the same on the command line and over HTTP.
package struct RequestOptions: Sendable {
    /// The cut-out asked for; its outputs are set by the route (`LiftService`).
    var request: CutoutRequest
    /// Answer with the grey mask instead of the cut-out (`only-mask`, as `POST /api/mask`).
    var onlyMask = false
    /// Whether the request named its image's format (`format`); else the `Accept` header chooses.
    var formatGiven = false

    /// The fields a request may name: the cut-out options' Lift names, `only-mask`, and `file` (the photo).
    static var fieldNames: [String] { CutoutOption.table.compactMap(\.name) + ["only-mask"] }

    /// Reads `fields` (query pairs, then form fields) with the server's defaults. A switch takes
    /// `true`/`1`/`yes`/`on`/empty or `false`/`0`/`no`/`off`.
    /// - Parameters:
    ///   - serverModel: the model `lift serve --model` loaded; requests may name it or a shipped model.
    /// - Throws: 400 naming the field and what it takes.
    package init(fields: [(name: String, value: String)], serverModel: ModelName?, serverQuality: Quality) throws(HTTPError) {
        var given = ParsedArguments()
        var onlyMask = false
        for (name, value) in fields where name != "file" {
            if name == "url" {
                throw HTTPError(.badRequest, "Lift never fetches URLs for a client (no 'url' option); send the photo's bytes as the request body or as the form field 'file'",
                                closesConnection: false)
            }
            let option = CutoutOption.table.first { $0.name == name }
            guard option != nil || name == "only-mask" else {
                throw HTTPError(.badRequest, "unknown option '\(name)'; the options are " + Self.fieldNames.sorted().joined(separator: ", "),
                                closesConnection: false)
            }
            if let option, option.takesValue {
                given.values[option.key, default: []].append(value)
                continue
            }
            guard let on = Self.switchValue(value) else {
                throw HTTPError(.badRequest, "invalid value '\(value)' for '\(name)': expected true or false", closesConnection: false)
            }
            if let option { if on { given.flags.insert(option.key) } } else { onlyMask = on }
        }
        var request: CutoutRequest
        do throws(UsageError) {
            request = try CutoutRequest(parsing: given) { $0.name ?? $0.key }
        } catch {
            throw HTTPError(.badRequest, error.description, closesConnection: false)
        }
        if let model = request.model {
            guard model.isShipped || model == serverModel else {
                throw HTTPError(.badRequest, "model '\(model.rawValue)' is not offered here; the models are "
                                + (ModelName.allCases.map(\.rawValue) + (serverModel.map { $0.isShipped ? [] : [$0.rawValue] } ?? [])).joined(separator: ", "),
                                closesConnection: false)
            }
        } else {
            request.model = serverModel
        }
        if !given.has("quality") { request.quality = serverQuality }
        self.request = request
        self.onlyMask = onlyMask
        formatGiven = given.has("format")
    }

    /// `true`/`1`/`yes`/`on`/empty → true, `false`/`0`/`no`/`off` → false, else nil.
    private static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "", "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }
}
