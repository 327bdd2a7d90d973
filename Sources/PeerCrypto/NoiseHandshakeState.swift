import PeerCore

/// Noise HandshakeState (spec §5.3) for any ``NoiseHandshakePattern`` over
/// 25519/ChaChaPoly/SHA256.
///
/// Use: the initiator calls ``writeMessage(_:)`` first; the sides alternate;
/// after the last message ``isComplete`` is true and ``split()`` gives the
/// transport cipher states.
package struct NoiseHandshakeState: Sendable {
    /// Which side this is.
    package let isInitiator: Bool
    private let pattern: NoiseHandshakePattern
    private var symmetric: NoiseSymmetricState
    private let localStatic: NoiseKeyPair?
    private var localEphemeral: NoiseKeyPair?
    private let fixedEphemeral: NoiseKeyPair?
    /// The remote static public key, once received (or given for K/I patterns).
    package private(set) var remoteStatic: [UInt8]?
    private var remoteEphemeral: [UInt8]?
    private var psks: [[UInt8]]
    private var messageIndex = 0

    /// Initialize(): `prologue` is bound into the hash; `fixedEphemeral` is
    /// for test vectors only (a real handshake generates a fresh one).
    package init(pattern: NoiseHandshakePattern, initiator: Bool, prologue: [UInt8], localStatic: NoiseKeyPair?,
                remoteStatic: [UInt8]? = nil, psks: [[UInt8]] = [], fixedEphemeral: NoiseKeyPair? = nil) throws(NoiseError) {
        self.pattern = pattern
        isInitiator = initiator
        self.localStatic = localStatic
        self.remoteStatic = remoteStatic
        self.fixedEphemeral = fixedEphemeral
        self.psks = psks
        symmetric = NoiseSymmetricState(protocolName: pattern.protocolName)
        symmetric.mixHash(prologue)
        // Pre-messages: the initiator's first, then the responder's (spec §7.1).
        for (tokens, mine) in [(pattern.initiatorPreMessage, initiator), (pattern.responderPreMessage, !initiator)] where tokens.contains(.s) {
            if mine {
                guard let localStatic else { throw .missingKey("local static") }
                symmetric.mixHash(localStatic.publicKey)
            } else {
                guard let remoteStatic else { throw .missingKey("remote static") }
                symmetric.mixHash(remoteStatic)
            }
        }
    }

    /// Whether every handshake message has been processed.
    package var isComplete: Bool { messageIndex >= pattern.messages.count }

    /// Whether the next message is ours to write.
    package var isOurTurn: Bool { !isComplete && (messageIndex % 2 == 0) == isInitiator }

    /// `h`, the handshake hash (channel binding).
    package var handshakeHash: [UInt8] { symmetric.handshakeHash }

    /// WriteMessage(payload): the next handshake message.
    package mutating func writeMessage(_ payload: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard isOurTurn else { throw .outOfOrder }
        var out: [UInt8] = []
        for token in pattern.messages[messageIndex] {
            switch token {
            case .e:
                let ephemeral = fixedEphemeral ?? NoiseKeyPair.generate()
                localEphemeral = ephemeral
                out += ephemeral.publicKey
                symmetric.mixHash(ephemeral.publicKey)
                if pattern.usesPSK { symmetric.mixKey(ephemeral.publicKey) }
            case .s:
                guard let localStatic else { throw .missingKey("local static") }
                out += try symmetric.encryptAndHash(localStatic.publicKey)
            case .psk:
                try mixPSK()
            default:
                try mixDH(token)
            }
        }
        out += try symmetric.encryptAndHash(payload)
        guard out.count <= NoiseCipherState.maxMessageLength else { throw .messageTooLong(out.count) }
        messageIndex += 1
        return out
    }

    /// ReadMessage(message): returns the payload.
    package mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard !isComplete, !isOurTurn else { throw .outOfOrder }
        guard message.count <= NoiseCipherState.maxMessageLength else { throw .messageTooLong(message.count) }
        var rest = message[...]
        for token in pattern.messages[messageIndex] {
            switch token {
            case .e:
                guard rest.count >= 32 else { throw .truncated }
                let key = Array(rest.prefix(32))
                rest = rest.dropFirst(32)
                remoteEphemeral = key
                symmetric.mixHash(key)
                if pattern.usesPSK { symmetric.mixKey(key) }
            case .s:
                let length = 32 + (symmetric.hasKey ? NoiseCipherState.tagLength : 0)
                guard rest.count >= length else { throw .truncated }
                remoteStatic = try symmetric.decryptAndHash(Array(rest.prefix(length)))
                rest = rest.dropFirst(length)
            case .psk:
                try mixPSK()
            default:
                try mixDH(token)
            }
        }
        if symmetric.hasKey && rest.count < NoiseCipherState.tagLength { throw .truncated }
        let payload = try symmetric.decryptAndHash(Array(rest))
        messageIndex += 1
        return payload
    }

    /// The transport cipher states: (send, receive) for this side.
    package func split() throws(NoiseError) -> (send: NoiseCipherState, receive: NoiseCipherState) {
        guard isComplete else { throw .outOfOrder }
        let pair = symmetric.split()
        return oriented(pair.initiatorToResponder, pair.responderToInitiator)
    }

    /// The datagram path's keys for this side, (send, receive)
    /// (``NoiseSymmetricState/datagramKeys()``), once the handshake is complete.
    package func datagramKeys() throws(NoiseError) -> (send: [UInt8], receive: [UInt8]) {
        guard isComplete else { throw .outOfOrder }
        let pair = symmetric.datagramKeys()
        return oriented(pair.initiatorToResponder, pair.responderToInitiator)
    }

    /// The session's bulk lane key (``NoiseSymmetricState/laneKey()``), the
    /// same on both sides, once the handshake is complete.
    package func laneKey() throws(NoiseError) -> [UInt8] {
        guard isComplete else { throw .outOfOrder }
        return symmetric.laneKey()
    }

    /// A pair of per-direction values as (send, receive) from this side.
    private func oriented<T>(_ initiatorToResponder: T, _ responderToInitiator: T) -> (send: T, receive: T) {
        isInitiator ? (initiatorToResponder, responderToInitiator) : (responderToInitiator, initiatorToResponder)
    }

    private mutating func mixDH(_ token: NoiseToken) throws(NoiseError) {
        // Which local and remote keys each DH token names, from this side's view.
        let local: [UInt8]?
        let remote: [UInt8]?
        switch (token, isInitiator) {
        case (.ee, _): (local, remote) = (localEphemeral?.secretKey, remoteEphemeral)
        case (.ss, _): (local, remote) = (localStatic?.secretKey, remoteStatic)
        case (.es, true), (.se, false): (local, remote) = (localEphemeral?.secretKey, remoteStatic)
        case (.es, false), (.se, true): (local, remote) = (localStatic?.secretKey, remoteEphemeral)
        default: return
        }
        guard let local, let remote else { throw .missingKey(token.rawValue) }
        guard let shared = Sodium.x25519(secret: local, public: remote) else { throw .invalidPublicKey }
        symmetric.mixKey(shared)
    }

    private mutating func mixPSK() throws(NoiseError) {
        guard !psks.isEmpty else { throw .missingKey("psk") }
        symmetric.mixKeyAndHash(psks.removeFirst())
    }
}
