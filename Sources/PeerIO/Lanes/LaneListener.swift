import Dispatch
import PeerCore
import PeerSystem

/// The lane port (issue 44; docs/protocol.md §12): a TCP listener of its
/// own, on a port the kernel picks, which each session's `laneOffer`
/// names. It takes only lanes, so a connection here is never a session.
/// Connections not yet greeted are bounded in all and per address, and
/// each has ``BulkLane/deadlineSeconds`` to greet and finish its handshake.
@MainActor
final class LaneListener {
    /// Lanes accepted and not yet up, in all.
    static let maxPending = 16
    /// Lanes accepted and not yet up, from one address.
    static let maxPendingPerAddress = 4

    private let listener: TCPListener
    private var source: (any DispatchSourceRead)?
    private let logger: Logger
    /// Accepted lanes not yet up (or failed), counted against the bounds.
    private let pending: @MainActor () -> [BulkLane]
    /// An admitted connection, to become a lane.
    private let accepted: @MainActor (FileDescriptor) -> Void
    private var refused = RefusalCounter()

    /// A listener on `listener`; `pending` gives the lanes still opening,
    /// and `accepted` makes a lane of each admitted connection.
    init(listener: TCPListener, logger: Logger, pending: @escaping @MainActor () -> [BulkLane],
         accepted: @escaping @MainActor (FileDescriptor) -> Void) {
        self.listener = listener
        self.logger = logger
        self.pending = pending
        self.accepted = accepted
    }

    /// The port sessions offer.
    var port: UInt16 { listener.port }

    /// Starts accepting on the main queue.
    func start() {
        let source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor.rawValue, queue: .main)
        source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.acceptAll() } }
        self.source = source
        source.resume()
    }

    /// Stops accepting and closes the port.
    func stop() {
        source?.cancel()
        source = nil
        listener.close()
    }

    private func acceptAll() {
        while true {
            let connection: FileDescriptor
            do {
                guard let next = try listener.accept() else { return }
                connection = next
            } catch {
                logger.warning("lane port: \(error)")
                return
            }
            let host = TCPConnector.plainHost(TCPConnector.peerAddress(connection))
            let waiting = pending()
            if waiting.count >= Self.maxPending || waiting.filter({ $0.remoteHost == host }).count >= Self.maxPendingPerAddress {
                if refused.record() { logger.warning("lane port: too many lanes opening; refusing \(host) (\(refused.count) refused so far)") }
                connection.close()
                continue
            }
            accepted(connection)
        }
    }
}
