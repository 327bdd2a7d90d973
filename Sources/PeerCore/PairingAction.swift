/// What the I/O layer must do for one pairing.
public enum PairingAction: Equatable, Sendable {
    /// Send this message on the session.
    case send(WireMessage)
    /// Initiator: show the code to the user, who reads it to the other side.
    case showCode(String)
    /// Responder: ask the user to type the code shown on the initiator.
    case askUser(code: String)
    /// Both sides: store the peer in the trust store.
    case paired
    /// The pairing ended without trust.
    case failed(PairingFailure, String)
}
