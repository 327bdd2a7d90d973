import FoundationEssentials
import PeerCore
import PeerProtocol

// MARK: - Dials made because a peer is paired

extension SessionDirector {

    /// Dials a paired peer at `endpoints` (for ``ReconnectController``).
    /// The session is marked as made on trust (``PeerSession/dialledOnTrust``).
    package func dialPaired(_ peer: UUID, endpoints: [Endpoint], peerID: String) {
        guard opener.dial(peer, endpoints: opener.dialOrder(endpoints), expected: peerID, context: [], timeout: 30) else { return }
        table[peer]?.dialledOnTrust = true
    }

    /// The trust in `peer` is gone. A reconnect dial made while it held
    /// and not yet accepted ends: the peer no longer trusts us either, so
    /// it would hold the dial as an invitation no one asked for, and a
    /// `pair` started now would wait behind it (issue 41: the trust-store
    /// test's pairing found no request on the other host).
    func trustEnded(for peer: UUID) {
        guard let session = table[peer], session.dialledOnTrust, !session.isConnected, !session.isClosed else { return }
        logger.debug("session \(session.number): the trust it was dialled on ended; closing it")
        session.close("the pairing it was dialled for ended", reason: .closedLocally)
    }
}
