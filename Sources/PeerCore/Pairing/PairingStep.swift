/// Where one pairing is.
package import PeerProtocol
package enum PairingStep: Equatable, Sendable {
    /// Initiator: request sent, waiting for the responder's commitment.
    case awaitingCommit
    /// Responder: commitment sent, waiting for the initiator's nonce.
    case awaitingNonce
    /// Initiator: nonce sent, waiting for the reveal.
    case awaitingReveal
    /// Responder: code computed, waiting for the user to type it.
    case awaitingUser(code: String)
    /// Responder: the code matched; waiting for the trust to be stored.
    case storingTrust
    /// Initiator: code shown, waiting for the responder's confirmation.
    case awaitingConfirmation(code: String)
    /// Trust established on this side.
    case paired
    /// Over without trust.
    case failed(PairingFailure)
}
