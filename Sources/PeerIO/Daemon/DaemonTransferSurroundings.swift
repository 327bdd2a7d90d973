import CMalloc
import Dispatch
import FoundationEssentials
import PeerCore
import PeerProtocol

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
    private let apps: AppDesk
    private let clock: DaemonClock
    private let events: EventOutlet

    /// Surroundings over the daemon's components; `events` numbers an
    /// event and sends it to the clients.
    init(sessions: SessionTable, directory: PeerDirectory, trust: TrustDesk, control: ControlServer, apps: AppDesk, clock: DaemonClock,
         events: EventOutlet) {
        self.sessions = sessions
        self.directory = directory
        self.trust = trust
        self.control = control
        self.apps = apps
        self.clock = clock
        self.events = events
    }

    /// Any session counts: which app may offer on it is checked where offers go.
    func session(for peer: UUID) -> (any BulkSession)? { sessions[peer] }
    func row(_ peer: UUID) -> PeerSnapshot? { directory.row(peer) }
    func isPaired(_ peerID: String) -> Bool { trust.isPaired(peerID) }
    func hasQuickSave(_ peerID: String) -> Bool { trust.record(peerID: peerID)?.quickSave != nil }
    func deciders(_ app: AppName) -> Int {
        app.isDefault ? control.subscriberCount : control.subscriberCount { [apps] in apps.holds(app, $0) }
    }

    func transferEvent(_ kind: EventKind, _ info: TransferInfo) {
        // A finished transfer's buffers go back to the system: on the next
        // turn, once its owner has let go of it (issue 42, point 1: the
        // list of an offer that ended stayed in the heap when trimmed here).
        if kind == .transferCompleted || kind == .transferFailed {
            DispatchQueue.main.async {
                WriteBuffers.drain()
                malloc_trim(0)
            }
        }
        let event = ControlEvent(seq: 0, type: kind, time: clock.now(), peer: directory.row(info.peer), transfer: info)
        // An app's transfer is its clients' alone: not kept for a replay
        // that any subscriber may ask for (as an app's invitations).
        guard let text = info.app, let app = try? AppName(text) else { return events.emit(event) }
        events.emit(event) { [apps] in apps.holds(app, $0) }
    }
}
