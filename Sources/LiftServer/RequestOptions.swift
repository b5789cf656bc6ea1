import Lift
import LiftCLI

/// What one API request asks for, from its query string and form fields, named as the CLI's options
/// (`background=white&crop=true&margin=5%`) and checked by the CLI's own parser, so a value means
/// and is refused the same on the command line and over HTTP.
package struct RequestOptions: Sendable {
    /// The cut-out options (inputs, outputs and batch options are unused).
    var cutout: CutoutOptions
    /// Answer with the grey mask instead of the cut-out (`only-mask`, as `POST /api/mask`).
    var onlyMask = false

    /// Fields that take a value, as the CLI's options of the same name.
    static let valueFields = ["background", "margin", "max-size", "at", "instances", "instances-by", "model", "quality", "png-level", "threshold", "decontaminate"]
    /// Fields that are switches: `crop=true`, `square=1`, `no-refine=yes`, `only-mask=on` (or `false`,
    /// `0`, `no`, `off`; empty means true).
    static let flagFields = ["crop", "square", "no-refine", "only-mask"]

    /// Reads `fields` (query pairs, then form fields) with the server's defaults.
    /// - Parameters:
    ///   - serverModel: the model `lift serve --model` loaded; requests may name it or a shipped model.
    /// - Throws: 400 naming the field and what it takes.
    package init(fields: [(name: String, value: String)], serverModel: ModelName?, serverQuality: Quality) throws(HTTPError) {
        var arguments: [String] = []
        var onlyMask = false
        var namedQuality = false
        for (name, value) in fields {
            if name == "url" {
                throw HTTPError(.badRequest, "Lift never fetches URLs for a client (no 'url' option); send the photo's bytes as the request body or as the form field 'file'",
                                closesConnection: false)
            }
            if Self.valueFields.contains(name) {
                arguments += ["--\(name)", value]
                if name == "quality" { namedQuality = true }
            } else if Self.flagFields.contains(name) {
                guard let on = Self.switchValue(value) else {
                    throw HTTPError(.badRequest, "invalid value '\(value)' for '\(name)': expected true or false", closesConnection: false)
                }
                if name == "only-mask" { onlyMask = on } else if on { arguments.append("--\(name)") }
            } else if name != "file" {
                throw HTTPError(.badRequest, "unknown option '\(name)'; the options are " + (Self.valueFields + Self.flagFields).sorted().joined(separator: ", "),
                                closesConnection: false)
            }
        }
        let command: CutoutCommand
        do throws(UsageError) {
            command = try CutoutCommand.parse(arguments + ["--", "-"])
        } catch {
            throw HTTPError(.badRequest, error.description, closesConnection: false)
        }
        guard case .run(var options) = command else { preconditionFailure("a cut-out command with an input parses to .run") }
        if let model = options.model {
            guard model.isShipped || model == serverModel else {
                throw HTTPError(.badRequest, "model '\(model.rawValue)' is not offered here; the models are "
                                + (ModelName.allCases.map(\.rawValue) + (serverModel.map { $0.isShipped ? [] : [$0.rawValue] } ?? [])).joined(separator: ", "),
                                closesConnection: false)
            }
        } else {
            options.model = serverModel
        }
        if !namedQuality { options.quality = serverQuality }
        cutout = options
        self.onlyMask = onlyMask
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
