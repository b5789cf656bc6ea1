/// Where an analysis's subjects come from: the mask's connected components or the model's instance heads.
public enum InstanceSource: String, Sendable, Hashable, CaseIterable {
    /// The connected components of the foreground mask: subjects that touch or overlap are one.
    case components
    /// The model's instance cues (a subject model exported with its instance heads: centre heatmap,
    /// offsets, touching boundary) regroup the components: touching subjects come apart, the
    /// visible parts of an occluded one join (`InstanceGrouping`). The subjects' union is the same
    /// mask. A model without instance heads cannot give them (`LiftError.noInstanceCues`).
    case model
}
