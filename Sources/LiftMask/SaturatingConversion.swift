extension Int {
    /// `value` rounded by `rule` and clamped to ±2⁶⁰ (NaN gives 0), so that sizes and positions
    /// computed from user-given numbers (`--at 1e19,5`, `--margin 1e30%`) cannot trap on conversion;
    /// callers still bound the result to what they can allocate.
    init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        let limit = Double(1 << 60)
        guard !value.isNaN else { self = 0; return }
        self = Int(Swift.min(Swift.max(value.rounded(rule), -limit), limit))
    }
}
