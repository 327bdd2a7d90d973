import FoundationEssentials
import PeerCore
import PeerProtocol

/// The pairing a session carries (``PairingLifecycle``, pure): started,
/// answered and driven here; its steps other than messages go to the owner.
extension PeerSession {
    /// Starts pairing as the initiator on this connected session.
    package func startPairing(nonce: [UInt8], timeout: TimeInterval) {
        guard canCarryPairing, pairing == nil || pairing?.isFinished == true else { return }
        let machine = PairingLifecycle(initiatorWith: handshakeHash, nonce: nonce, now: clock.now(), timeout: timeout, sha256: { Sodium.sha256($0) })
        pairing = machine
        performPairing(machine.start())
    }

    /// Answers the peer's pairing request: commit to `nonce`, or refuse.
    package func answerPairingRequest(accept: Bool, nonce: [UInt8], timeout: TimeInterval, refusal: PairingFailure = .rejected, text: String = "") {
        guard accept else {
            transmit(.pairReject(reason: refusal, text: text))
            return
        }
        let machine = PairingLifecycle(responderWith: handshakeHash, nonce: nonce, now: clock.now(), timeout: timeout, sha256: { Sodium.sha256($0) })
        pairing = machine
        performPairing(machine.start())
    }

    /// Responder: the user typed `code`.
    package func pairingCodeEntered(_ code: String) {
        guard var machine = pairing else { return }
        let actions = machine.userConfirmed(code: code)
        pairing = machine
        performPairing(actions)
    }

    /// Responder: the trust store was written (or not); confirm or reject.
    package func trustStored(_ stored: Bool) {
        guard var machine = pairing else { return }
        let actions = machine.trustStored(stored)
        pairing = machine
        performPairing(actions)
    }

    /// Either side: the user rejected the pairing.
    package func rejectPairing() {
        guard var machine = pairing else { return }
        let actions = machine.userRejected()
        pairing = machine
        performPairing(actions)
    }

    /// Sends the pairing's messages; the owner acts on its other steps.
    func performPairing(_ actions: [PairingAction]) {
        for action in actions {
            if case .send(let message) = action {
                transmit(message)
            } else {
                delegate?.session(self, pairing: action)
            }
        }
    }
}
