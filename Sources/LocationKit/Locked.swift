import Foundation

/// A value behind a lock. Small and portable (NSLock works on every platform the package builds on,
/// unlike `Synchronization.Mutex`, which needs newer Apple OS versions than Package.swift declares).
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var wrapped: Value { withLock { $0 } }
}
