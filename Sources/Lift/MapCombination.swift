import LiftMask

/// How a model's probability map is combined with its partner network's (both covering the whole
/// photo, at the same size) before edge refinement: a weighted mean with its contrast raised around
/// 0.5, `clamp(0.5 + gain · (w · a + (1 − w) · b − 0.5), 0, 1)` for the model's map a and the
/// partner's map b. Where both agree the map is as sure as they are; where they disagree it moves
/// towards 0.5, less far when the model is sure. The weight and gain of each level come from the
/// model's recipe (`Recipe.Partner`; JSON `{"method": "stretched_mean", "subject_weight": w, "gain": g}`).
public struct MapCombination: Sendable, Equatable {
    /// The largest `gain` a recipe may ask for (a gain of 16 already makes a 0/1 mask of all but
    /// the ±1/32 band around 0.5).
    public static let maximumGain: Float = 16

    /// w, the model map's share of the mean (0…1).
    public var subjectWeight: Float
    /// How far the mean is stretched around 0.5 (1…`maximumGain`).
    public var gain: Float

    /// The combination `clamp(0.5 + gain · (w · a + (1 − w) · b − 0.5), 0, 1)` with w = `subjectWeight`
    /// (checked as part of a `Recipe`).
    public init(subjectWeight: Float, gain: Float) {
        self.subjectWeight = subjectWeight
        self.gain = gain
    }

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
