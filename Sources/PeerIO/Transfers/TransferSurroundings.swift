import FoundationEssentials
import PeerCore
import PeerProtocol

/// What the transfer desk asks of the rest of the daemon (issue 21, point
/// 8), given to it at init: the session with a peer, the peer's row,
/// whether it is paired, how many clients could decide an offer, and where
/// its events go. The daemon's is ``DaemonTransferSurroundings``; a test
/// hands in its own, so nothing is left to be wired later.
@MainActor
package protocol TransferSurroundings: AnyObject {
    /// The session counting for `peer`, if one is up.
    func session(for peer: UUID) -> (any BulkSession)?
    /// The peer's row.
    func row(_ peer: UUID) -> PeerSnapshot?
    /// Whether `peerID` is paired.
    func isPaired(_ peerID: String) -> Bool
    /// Whether `peerID` is paired with a Quick Save rule (issue 45).
    func hasQuickSave(_ peerID: String) -> Bool
    /// Subscribed clients that could decide an offer for `app`: the
    /// default app's subscribers, or those holding `app`.
    func deciders(_ app: AppName) -> Int
    /// A transfer event for the clients: an app's (``TransferInfo/app``)
    /// goes to that app's clients alone.
    func transferEvent(_ kind: EventKind, _ info: TransferInfo)
}
