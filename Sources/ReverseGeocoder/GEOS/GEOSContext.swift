import CGEOS

/// One GEOS re-entrant context (`GEOS_init_r`). GEOS contexts are not thread-safe: each thread that
/// queries owns one (see `QueryContext`), and the loader owns one of its own.
///
/// GEOS reports errors through a callback; we keep the last message so a failing call can be turned
/// into a ``GeocoderError/geos(_:)`` right where it happened.
final class GEOSContext {
    let handle: GEOSContextHandle_t
    private let messages: MessageBox

    /// Holds the last error message GEOS sent to this context.
    final class MessageBox {
        var last = ""
    }

    init() {
        // GEOS_init_r only fails when out of memory; there is nothing sensible to do then.
        guard let handle = GEOS_init_r() else { fatalError("GEOS_init_r failed (out of memory)") }
        self.handle = handle
        messages = MessageBox()
        let box = Unmanaged.passUnretained(messages).toOpaque()
        GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            Unmanaged<MessageBox>.fromOpaque(userData).takeUnretainedValue().last = String(cString: message)
        }, box)
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// The error GEOS reported last, for wrapping a failed call.
    func error(_ what: String) -> GeocoderError {
        let message = messages.last
        messages.last = ""
        return .geos(message.isEmpty ? what : "\(what): \(message)")
    }
}
