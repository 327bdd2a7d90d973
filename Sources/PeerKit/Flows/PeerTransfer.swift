import PeerProtocol

/// A file transfer under way (``PeerClient/sendFile(_:to:app:)``): its
/// progress as an `AsyncSequence` of ``TransferInfo`` that ends when it
/// completes (and throws when it fails), and ``cancel()``.
///
///     let transfer = try await client.sendFile("/tmp/a.txt", to: peer)
///     for try await info in transfer.progress { print(info.bytes, "of", info.totalBytes) }
public actor PeerTransfer {
    /// What the daemon said when it took the files.
    public nonisolated let started: TransferInfo
    private var events: PeerEvents.Iterator
    private let client: PeerClient
    private var finished = false

    /// A transfer the daemon took, followed through `events` (subscribed already).
    init(started: TransferInfo, events: PeerEvents.Iterator, client: PeerClient) {
        self.started = started
        self.events = events
        self.client = client
    }

    /// The transfer's id.
    public nonisolated var id: String { started.id }

    /// Each state of the transfer, the last one `completed`; a failure is
    /// thrown as ``PeerError/daemon(_:_:field:)`` with the reason's words.
    public nonisolated var progress: Progress { Progress(transfer: self) }

    /// Cancels it, on both sides.
    @discardableResult
    public func cancel() async throws(PeerError) -> TransferInfo {
        try await client.cancelTransfer(id, app: started.app)
    }

    /// The next state, or nil after the last.
    func next() async throws(PeerError) -> TransferInfo? {
        guard !finished else { return nil }
        while true {
            // One consumer at a time: the iterator is taken out across the wait.
            var iterator = events
            let next = try await iterator.next()
            events = iterator
            guard let event = next else { return nil }
            guard case .event(let e) = event, let info = e.transfer, info.id == started.id else { continue }
            switch e.type {
            case .transferCompleted:
                finished = true
                return info
            case .transferFailed:
                finished = true
                throw .daemon(.internal, "the transfer failed: \(info.reason?.rawValue ?? "?")\(info.detail.map { ": \($0)" } ?? "")", field: nil)
            default:
                return info
            }
        }
    }

    /// The progress of a transfer.
    public struct Progress: AsyncSequence, Sendable {
        /// One state of the transfer.
        public typealias Element = TransferInfo
        /// Only PeerKit's errors.
        public typealias Failure = PeerError
        let transfer: PeerTransfer
        /// The iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(transfer: transfer) }
        /// Pulls one state at a time.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let transfer: PeerTransfer
            /// The next state.
            public mutating func next() async throws(PeerError) -> TransferInfo? { try await transfer.next() }
        }
    }
}
