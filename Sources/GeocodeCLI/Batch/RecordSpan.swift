/// Where one input record lies in its chunk, and the physical line of the input it starts on.
struct RecordSpan: Sendable, Equatable {
    var range: Range<Int>
    var line: Int
}
