import LiftMask

/// How `Quality.accurate` combines the subject model's probability map with U²-Net-small's (both
/// covering the whole photo, at the same size) before edge refinement: their mean with its
/// contrast doubled around 0.5, `clamp(0.5 + 2 · (mean − 0.5), 0, 1)` = `clamp(a + b − 0.5, 0, 1)`.
/// Where both agree the map is as sure as they are; where they disagree it stays near 0.5.
///
/// Chosen on both validation sets (`Tools/evaluation/combine_masks.py` on the two models' unrefined
/// masks): the plain mean raises max F and S but costs MAE (its in-between values), the per-pixel
/// more confident map lowers MAE but costs S; the contrast-raised mean improves all three on both
/// sets (`Benchmarks/RESULTS.md`, "accurate: two networks").
enum MapCombination {
    /// The per-pixel combination of `subject` and `partner` (same size).
    static func combine(_ subject: FloatMap, _ partner: FloatMap) -> FloatMap {
        precondition(subject.width == partner.width && subject.height == partner.height, "maps of different sizes")
        var result = subject
        for i in result.values.indices {
            result.values[i] = min(max(subject.values[i] + partner.values[i] - 0.5, 0), 1)
        }
        return result
    }
}
