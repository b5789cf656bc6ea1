/// Indices of the instance cues (`centre`, `offset`, optional `boundary` and `affinity`) among a
/// graph's outputs (GRAPH-FORMAT.md, "Instance cues").
struct CueOutputs: Sendable {
    let centre: Int, offset: Int, boundary: Int?, affinity: Int?

    /// Found by name among `outputNames` after the first `leading` ones (1 for a mask graph with its
    /// heads inline: the mask comes first); nil without both `centre` and `offset`.
    init?(outputNames: [String], after leading: Int) {
        let names = outputNames.dropFirst(leading)
        guard let centre = names.firstIndex(of: "centre"), let offset = names.firstIndex(of: "offset") else { return nil }
        self.centre = centre
        self.offset = offset
        boundary = names.firstIndex(of: "boundary")
        affinity = names.firstIndex(of: "affinity")
    }
}
