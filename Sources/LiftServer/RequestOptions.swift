import Lift
import LiftPipeline

/// What one API request asks for, from its query string and form fields named as Lift's options
/// (`background=white&crop=true&margin=5%`) or as rembg's server names them (`om=true&bgc=255,255,255,255`),
/// parsed through `CutoutOption.table` as the command line is, so a value means and is refused the
/// same on the command line and over HTTP.
package struct RequestOptions: Sendable {
    /// The cut-out asked for; the route (`LiftService`) sets the image it answers with.
    var request: CutoutRequest
    /// Whether the request named its image's format (`format`); else the `Accept` header chooses.
    var formatGiven = false

    /// The fields a request may name: the cut-out options' Lift names and rembg's fields, and `file` (the photo).
    static var fieldNames: [String] {
        var names: [String] = []
        for option in CutoutOption.table {
            for name in [option.name, option.rembg?.field].compactMap({ $0 }) where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// Reads `fields` (query pairs, then form fields) with the server's defaults. A switch takes
    /// `true`/`1`/`yes`/`on`/empty or `false`/`0`/`no`/`off`.
    /// - Parameters:
    ///   - serverModel: the model `lift serve --model` loaded; requests may name it, a shipped model,
    ///     or a rembg model in rembg's directory (`U2NET_HOME`), never a file path.
    /// - Throws: 400 naming the field and what it takes; 422 for a rembg model that is not in rembg's directory.
    package init(fields: [(name: String, value: String)], serverModel: ModelName?, serverQuality: Quality) throws(HTTPError) {
        var given = ParsedArguments()
        for (name, value) in fields where name != "file" {
            if name == "url" {
                throw HTTPError(.badRequest, "Lift never fetches URLs for a client (no 'url' option); send the photo's bytes as the body or as the form field 'file'",
                                closesConnection: false)
            }
            guard let option = CutoutOption.table.first(where: { $0.name == name }) ?? CutoutOption.table.first(where: { $0.rembg?.field == name }) else {
                throw HTTPError(.badRequest, "unknown option '\(name)'; the options are " + Self.fieldNames.sorted().joined(separator: ", "),
                                closesConnection: false)
            }
            if option.takesValue {
                given.values[option.key, default: []].append(value)
                continue
            }
            guard let on = Self.switchValue(value) else {
                throw HTTPError(.badRequest, "invalid value '\(value)' for '\(name)': expected true or false", closesConnection: false)
            }
            if on { given.flags.insert(option.key) }
        }
        var request: CutoutRequest
        do throws(UsageError) {
            request = try CutoutRequest(parsing: given) { $0.name ?? $0.key }
        } catch {
            throw HTTPError(.badRequest, error.description, closesConnection: false)
        }
        if let model = request.model {
            try Self.checkOffered(model, serverModel: serverModel)
        } else {
            request.model = serverModel
        }
        if !given.has("quality") { request.quality = serverQuality }
        self.request = request
        formatGiven = given.has("format")
    }

    /// Refuses a model a request may not name: a file path (a request must not open the server's
    /// files), or a rembg model whose `NAME.onnx` is not in rembg's directory (422 saying where Lift looked).
    private static func checkOffered(_ model: ModelName, serverModel: ModelName?) throws(HTTPError) {
        if model.isShipped || model == serverModel { return }
        guard model.file == nil else {
            throw HTTPError(.badRequest, "model '\(model.rawValue)' is not offered here; the models are "
                            + (ModelName.allCases.map(\.rawValue) + (serverModel.map { $0.isShipped ? [] : [$0.rawValue] } ?? [])).joined(separator: ", ")
                            + ", and rembg's models in its directory (U2NET_HOME)", closesConnection: false)
        }
        do {
            _ = try ModelCatalog.url(for: model)
        } catch {
            throw HTTPError(.unprocessableContent, error.description, closesConnection: false)
        }
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
