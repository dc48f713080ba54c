/// How the answers of one admin layer are completed from the datasets below it (the manifest's
/// `completedBelow`: China's province layer, whose 台湾省 takes its city and below from the GeoNames
/// places). Made once at load, one per such layer, so that a completed answer reads what it needs instead
/// of searching the datasets for the layer's own on every answer.
struct LayerCompletion {
    /// The layer's level: an answer keeps its levels down to this one, the levels below come from the
    /// datasets below.
    let level: AdminLevel
    /// The codes (at `level`) of the layer's units that are completed; other units answer as they are.
    let codes: Set<String>
    /// The first admin dataset (by priority, an index into the engine's admin datasets) the completion
    /// walk tries: the one after the layer's own. The walk goes on in priority order from there, and the
    /// first that has a unit containing the point completes the answer.
    let walkFrom: Int
}
