import CMalloc
import FoundationEssentials
import PeerCore

/// The daemon's side of ``TransferSurroundings``: sessions from the one
/// ``SessionTable``, rows from the ``PeerDirectory``, trust from the
/// ``TrustDesk``, deciders from the ``ControlServer``, and events out
/// through the daemon's one event path. Made before the desk, from
/// components that already exist, so the desk has them from its first
/// line (issue 21, point 8).
@MainActor
final class DaemonTransferSurroundings: TransferSurroundings {
    private let sessions: SessionTable
    private let directory: PeerDirectory
    private let trust: TrustDesk
    private let control: ControlServer
    private let clock: DaemonClock
    private let emit: @MainActor (ControlEvent) -> Void

    /// Surroundings over the daemon's components; `emit` numbers an event
    /// and sends it to the clients.
    init(sessions: SessionTable, directory: PeerDirectory, trust: TrustDesk, control: ControlServer, clock: DaemonClock,
         emit: @escaping @MainActor (ControlEvent) -> Void) {
        self.sessions = sessions
        self.directory = directory
        self.trust = trust
        self.control = control
        self.clock = clock
        self.emit = emit
    }

    /// Files are the default app's: a session accepted for an app alone carries none.
    func session(for peer: UUID) -> (any BulkSession)? { sessions[peer].flatMap { $0.carriesDefault ? $0 : nil } }
    func row(_ peer: UUID) -> PeerSnapshot? { directory.row(peer) }
    func isPaired(_ peerID: String) -> Bool { trust.isPaired(peerID) }
    var deciders: Int { control.subscriberCount }

    func transferEvent(_ kind: EventKind, _ info: TransferInfo) {
        // A finished transfer's buffers go back to the system.
        if kind == .transferCompleted || kind == .transferFailed { malloc_trim(0) }
        emit(ControlEvent(seq: 0, type: kind, time: clock.now(), peer: directory.row(info.peer), transfer: info))
    }
}
