/// What the I/O layer must do for one pairing.
package import PeerProtocol
package enum PairingAction: Equatable, Sendable {
    /// Send this message on the session.
    case send(WireMessage)
    /// Initiator: show the code to the user, who reads it to the other side.
    case showCode(String)
    /// Responder: ask the user to type the code shown on the initiator.
    case askUser(code: String)
    /// Responder, the code matched: store the peer in the trust store now,
    /// and report with ``PairingLifecycle/trustStored(_:)``; the
    /// confirmation goes out only once the trust is on disk.
    case storeTrust
    /// The pairing completed on this side (the responder has stored the
    /// trust; the initiator must store it now).
    case paired
    /// The pairing ended without trust.
    case failed(PairingFailure, String)
}
