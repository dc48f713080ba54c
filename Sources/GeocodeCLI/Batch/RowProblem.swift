/// A bad row, as reported on stderr: which physical line it starts on and what is wrong with it.
struct RowProblem: Sendable, Equatable {
    /// Index of the row within its chunk (so `--strict` can cut the output right before it).
    var rowIndex: Int
    var line: Int
    var message: String
}
