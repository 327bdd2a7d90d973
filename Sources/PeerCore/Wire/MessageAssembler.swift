/// Reassembles fragmented application data, refusing anything over the
/// configured maximum message size (`--max-message`). Fragments carry the
/// app number they come under (0 for plain `data`, the default app): one
/// message's fragments come under one number, one after another, so a
/// fragment under another number before the last is a protocol error.
package struct MessageAssembler: Sendable {
    /// The largest message accepted.
    package let maxMessage: Int
    private var pending: [UInt8] = []
    /// The app number of the message being assembled, if one is.
    private var pendingApp: UInt16?

    /// An assembler accepting messages up to `maxMessage` bytes.
    package init(maxMessage: Int) { self.maxMessage = maxMessage }

    /// What a fragment completed.
    package enum Outcome: Equatable, Sendable {
        /// More fragments are needed.
        case incomplete
        /// A whole message, under app number `app` (0: the default app).
        case message([UInt8], app: UInt16)
        /// The message passed `maxMessage` (bytes so far).
        case tooLarge(Int)
        /// A fragment under app number `got` came while one under
        /// `expected` was unfinished.
        case interleaved(expected: UInt16, got: UInt16)
    }

    /// Adds one fragment, under app number `app`.
    package mutating func add(more: Bool, bytes: [UInt8], app: UInt16 = 0) -> Outcome {
        if let pendingApp, pendingApp != app {
            pending = []
            self.pendingApp = nil
            return .interleaved(expected: pendingApp, got: app)
        }
        guard pending.count + bytes.count <= maxMessage else {
            let size = pending.count + bytes.count
            pending = []
            pendingApp = nil
            return .tooLarge(size)
        }
        pending += bytes
        guard !more else {
            pendingApp = app
            return .incomplete
        }
        defer {
            pending = []
            pendingApp = nil
        }
        return .message(pending, app: app)
    }
}
