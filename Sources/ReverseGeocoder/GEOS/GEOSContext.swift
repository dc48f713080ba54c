import CGEOS

/// One GEOS re-entrant context (`GEOS_init_r`). GEOS contexts are not thread-safe: each thread that
/// queries owns one (see `QueryContext`), and the loader owns one of its own.
///
/// GEOS reports errors through a callback; we keep the last message so a failing call can be turned
/// into a ``GEOSError`` right where it happened.
final class GEOSContext {
    let handle: GEOSContextHandle_t
    private let messages: MessageBox

    /// Holds the last error message GEOS sent to this context.
    final class MessageBox {
        var last = ""
    }

    /// Fails only when GEOS cannot allocate a context (out of memory): the loader reports that as a load
    /// error, a query as an error of that query.
    init() throws(GEOSError) {
        guard let handle = GEOS_init_r() else {
            throw GEOSError(operation: "creating a GEOS context (GEOS_init_r)", message: "out of memory")
        }
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

    /// The error GEOS reported last, for wrapping a failed call. Out of line: it is only reached when a
    /// call failed, and keeps the string work out of the predicates' inlined fast path.
    @inline(never)
    func error(_ what: String) -> GEOSError {
        let message = messages.last
        messages.last = ""
        return GEOSError(operation: what, message: message)
    }
}
