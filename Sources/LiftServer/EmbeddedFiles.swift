/// The files `lift serve` serves, compiled into the binary (`Page/`): nothing is read from the file
/// system at run time.
enum EmbeddedFiles {
    /// `GET /`: the web page (`Page/index.html`).
    static let page: [UInt8] = PackageResources.index_html
    /// `GET /openapi.json`: the API's OpenAPI 3.1 description (`Page/openapi.json`).
    static let openAPI: [UInt8] = PackageResources.openapi_json
}
