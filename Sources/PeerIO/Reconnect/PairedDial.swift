import FoundationEssentials
import PeerCore
import PeerProtocol

/// A dial ``ReconnectController`` decided on; the daemon performs it
/// through the session director (which owns the sessions).
package struct PairedDial: Equatable, Sendable {
    /// The paired peer's row.
    package let peer: UUID
    /// Where to dial, best first.
    package let endpoints: [Endpoint]
    /// The peer id the session must prove.
    package let peerID: String
}
