package import FoundationEssentials
internal import PeerProtocol

/// The pure state machine of pairing over an established session: commit,
/// then reveal, then a person compares the code (docs/security.md).
///
///     initiator                          responder
///       pairRequest  ------------------>
///                    <------------------  pairCommit(SHA-256(Nb))
///       pairNonce(Na) ----------------->
///                    <------------------  pairReveal(Nb)
///       [check SHA-256(Nb); show code]    [ask the user for the code]
///                    <------------------  pairConfirm | pairReject(reason)
///
/// Nonces and the hash are passed in, so the machine has no crypto or
/// randomness of its own and is tested without sockets.
package struct PairingLifecycle: Sendable {
    /// Which side this is.
    package let role: SessionLifecycle.Role
    /// Where the pairing is.
    package private(set) var step: PairingStep
    private let handshakeHash: [UInt8]
    private let nonce: [UInt8]
    private let sha256: @Sendable ([UInt8]) -> [UInt8]
    private var peerNonce: [UInt8] = []
    private var commitment: [UInt8] = []
    private let deadline: Date

    /// The initiator's machine; ``start()`` sends the request.
    package init(initiatorWith handshakeHash: [UInt8], nonce: [UInt8], now: Date, timeout: TimeInterval,
                sha256: @escaping @Sendable ([UInt8]) -> [UInt8]) {
        role = .inviter
        step = .awaitingCommit
        self.handshakeHash = handshakeHash
        self.nonce = nonce
        self.sha256 = sha256
        deadline = now.addingTimeInterval(timeout)
    }

    /// The responder's machine, made when a `pairRequest` arrives; ``start()`` commits.
    package init(responderWith handshakeHash: [UInt8], nonce: [UInt8], now: Date, timeout: TimeInterval,
                sha256: @escaping @Sendable ([UInt8]) -> [UInt8]) {
        role = .invitee
        step = .awaitingNonce
        self.handshakeHash = handshakeHash
        self.nonce = nonce
        self.sha256 = sha256
        deadline = now.addingTimeInterval(timeout)
    }

    /// Whether it is over (paired or failed).
    package var isFinished: Bool {
        switch step {
        case .paired, .failed: return true
        default: return false
        }
    }

    /// The first message of this side.
    package func start() -> [PairingAction] {
        role == .inviter ? [.send(.pairRequest)] : [.send(.pairCommit(sha256(nonce)))]
    }

    /// A pairing message arrived.
    package mutating func received(_ message: WireMessage) -> [PairingAction] {
        guard !isFinished else { return [] }
        switch (message, step) {
        case (.pairReject(let reason, let text), _):
            step = .failed(reason)
            return [.failed(reason, text.isEmpty ? "the peer rejected the pairing" : text)]
        case (.pairCommit(let value), .awaitingCommit):
            commitment = value
            step = .awaitingReveal
            return [.send(.pairNonce(nonce))]
        case (.pairNonce(let value), .awaitingNonce):
            peerNonce = value
            let code = PairingCode.derive(handshakeHash: handshakeHash, initiatorNonce: value, responderNonce: nonce, sha256: sha256)
            step = .awaitingUser(code: code)
            return [.send(.pairReveal(nonce)), .askUser(code: code)]
        case (.pairReveal(let value), .awaitingReveal):
            guard sha256(value) == commitment else {
                return fail(.commitmentMismatch, "the revealed nonce does not match its commitment")
            }
            peerNonce = value
            let code = PairingCode.derive(handshakeHash: handshakeHash, initiatorNonce: nonce, responderNonce: value, sha256: sha256)
            step = .awaitingConfirmation(code: code)
            return [.showCode(code)]
        case (.pairConfirm, .awaitingConfirmation):
            step = .paired
            return [.paired]
        default:
            return fail(.protocolError, "unexpected pairing message in step \(step)")
        }
    }

    /// Responder: the user typed `typed`. A mismatch fails as `wrongCode`;
    /// a match asks for the trust to be stored before anything is confirmed.
    package mutating func userConfirmed(code typed: String) -> [PairingAction] {
        guard case .awaitingUser(let code) = step else { return [] }
        guard typed == code else { return fail(.wrongCode, "the code typed does not match") }
        step = .storingTrust
        return [.storeTrust]
    }

    /// Responder: the trust store was written (`true`) or could not be.
    /// Only a stored trust is confirmed; otherwise the pairing is rejected
    /// as `storageFailed`, so the two sides always agree.
    package mutating func trustStored(_ stored: Bool) -> [PairingAction] {
        guard step == .storingTrust else { return [] }
        guard stored else { return fail(.storageFailed, "the other host could not store the pairing (its disk may be full)") }
        step = .paired
        return [.send(.pairConfirm), .paired]
    }

    /// Either side: the user said no.
    package mutating func userRejected() -> [PairingAction] {
        guard !isFinished else { return [] }
        return fail(.rejected, "rejected by the user")
    }

    /// The session under the pairing ended.
    package mutating func sessionClosed() -> [PairingAction] {
        guard !isFinished else { return [] }
        step = .failed(.sessionClosed)
        return [.failed(.sessionClosed, "the session ended before the pairing completed")]
    }

    /// The clock: the pairing timeout.
    package mutating func tick(now: Date) -> [PairingAction] {
        guard !isFinished, now >= deadline else { return [] }
        return fail(.timedOut, "nobody confirmed the code in time")
    }

    private mutating func fail(_ failure: PairingFailure, _ text: String) -> [PairingAction] {
        step = .failed(failure)
        return [.send(.pairReject(reason: failure, text: text)), .failed(failure, text)]
    }
}
