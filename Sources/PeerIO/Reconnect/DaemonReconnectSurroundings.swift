import FoundationEssentials
import PeerCore
import PeerProtocol

/// ``ReconnectSurroundings`` over the daemon's one session table, its
/// trust and its rows.
@MainActor
final class DaemonReconnectSurroundings: ReconnectSurroundings {
    private let table: SessionTable
    private let trust: TrustDesk
    private let directory: PeerDirectory

    init(table: SessionTable, trust: TrustDesk, directory: PeerDirectory) {
        self.table = table
        self.trust = trust
        self.directory = directory
    }

    func hasSession(_ peer: UUID) -> Bool { table.hasSession(peer) }
    var stalledDials: [PeerSession] { table.stalledDials { [trust] in trust.isPaired($0) } }
    var paired: [TrustFileRecord] { trust.records }
    func row(_ peer: UUID) -> PeerSnapshot? { directory.row(peer) }
}
