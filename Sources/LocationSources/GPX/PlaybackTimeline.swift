/// The events one playback run delivers, by index: an array for a parsed file, or computed on demand
/// for a synthetic route (so a long route at a short interval is never materialised).
struct PlaybackTimeline: Sendable {
    let count: Int
    let event: @Sendable (Int) -> LocationSourceEvent

    init(count: Int, event: @escaping @Sendable (Int) -> LocationSourceEvent) {
        self.count = count
        self.event = event
    }

    init(_ events: [LocationSourceEvent]) {
        self.init(count: events.count) { events[$0] }
    }
}
