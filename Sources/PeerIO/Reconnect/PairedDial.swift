import FoundationEssentials
import PeerCore

/// A dial ``ReconnectController`` decided on; the daemon performs it
/// through the session director (which owns the sessions).
public struct PairedDial: Equatable, Sendable {
    /// The paired peer's row.
    public let peer: UUID
    /// Where to dial, best first.
    public let endpoints: [Endpoint]
    /// The peer id the session must prove.
    public let peerID: String
}
