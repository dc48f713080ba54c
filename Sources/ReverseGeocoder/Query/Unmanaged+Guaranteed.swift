extension Unmanaged {
    /// `_withUnsafeGuaranteedRef` (use the object without retaining it; the caller guarantees it is
    /// alive) for a body with a typed error. The standard one only `rethrows`, which would widen the
    /// error to `any Error`; going through a `Result` keeps the error's type, and after inlining costs
    /// what the plain call does.
    @inline(__always)
    func withGuaranteedRef<R, E: Error>(_ body: (Instance) throws(E) -> R) throws(E) -> R {
        try _withUnsafeGuaranteedRef { instance in Result { () throws(E) -> R in try body(instance) } }.get()
    }
}
