import LiftMask

/// How the subject model's probability map is combined with U²-Net-small's (both covering the whole
/// photo, at the same size) before edge refinement: a weighted mean with its contrast raised around
/// 0.5, `clamp(0.5 + gain · (w · a + (1 − w) · b − 0.5), 0, 1)` for the subject map a and the
/// partner's map b. Where both agree the map is as sure as they are; where they disagree it moves
/// towards 0.5, less far when the subject model is sure.
///
/// Chosen on both validation sets (`Tools/evaluation/combine_masks.py` on the two models' unrefined
/// masks, then through the pipeline): the plain mean raises max F and S but costs MAE (its in-between
/// values), the per-pixel more confident map lowers MAE but costs S; the contrast-raised mean
/// improves all three on both sets (`Benchmarks/RESULTS.md`, "Subject model quality";
/// `docs/decisions/0002-u2net-small-joins-balanced.md` for `balanced`).
struct MapCombination: Sendable, Equatable {
    /// w, the subject map's share of the mean (0…1).
    var subjectWeight: Float
    /// How far the mean is stretched around 0.5 (≥ 1).
    var gain: Float

    /// `accurate`: the subject model's four passes with U²-Net-small's two, weighed alike, contrast
    /// doubled: `clamp(a + b − 0.5, 0, 1)`.
    static let even = MapCombination(subjectWeight: 0.5, gain: 2)

    /// `balanced`: the subject model's two passes with one U²-Net-small pass at 192², the subject
    /// map weighed 0.7 and the contrast raised 1.75×: `clamp(0.5 + 1.75 · (0.7 a + 0.3 b − 0.5), 0, 1)`.
    /// The even rule, with one small pass, costs DUTS what it gives ECSSD; weighted, both sets gain
    /// (`docs/decisions/0002-u2net-small-joins-balanced.md`).
    static let balanced = MapCombination(subjectWeight: 0.7, gain: 1.75)

    /// The per-pixel combination of `subject` and `partner` (same size).
    func combine(_ subject: FloatMap, _ partner: FloatMap) -> FloatMap {
        precondition(subject.width == partner.width && subject.height == partner.height, "maps of different sizes")
        var result = subject
        let w = subjectWeight, gain = gain
        for i in result.values.indices {
            let mean = w * subject.values[i] + (1 - w) * partner.values[i]
            result.values[i] = min(max(0.5 + gain * (mean - 0.5), 0), 1)
        }
        return result
    }
}
