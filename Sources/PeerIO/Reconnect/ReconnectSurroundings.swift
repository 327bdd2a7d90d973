import FoundationEssentials
import PeerCore
import PeerProtocol

/// What ``ReconnectController`` reads of the rest of the daemon: sessions,
/// trust and rows. Given at init (``DaemonReconnectSurroundings`` in the
/// daemon, a fake in tests), so no part of it can be left unset.
@MainActor
package protocol ReconnectSurroundings: AnyObject {
    /// Whether the peer has a session, or one is on its way.
    func hasSession(_ peer: UUID) -> Bool
    /// Sessions to paired peers still in TCP connect.
    var stalledDials: [PeerSession] { get }
    /// The paired peers.
    var paired: [TrustFileRecord] { get }
    /// A peer's row, for its current endpoints and presence.
    func row(_ peer: UUID) -> PeerSnapshot?
}
