import PeerCore

/// What a ``PeerSession`` reports to its owner (the session manager).
@MainActor
public protocol PeerSessionDelegate: AnyObject {
    /// The handshake proved the remote's static key; `peerID` is its fingerprint.
    func sessionAuthenticated(_ session: PeerSession, peerID: String)
    /// The invitee side got an invitation; a client must decide.
    func sessionNeedsDecision(_ session: PeerSession, name: String, context: [UInt8], timeoutSeconds: Int)
    /// The session is connected.
    func sessionEstablished(_ session: PeerSession)
    /// A whole application message arrived.
    func session(_ session: PeerSession, delivered message: [UInt8])
    /// The session ended (the socket is closed).
    func sessionFinished(_ session: PeerSession, reason: CloseReason, text: String)
}
