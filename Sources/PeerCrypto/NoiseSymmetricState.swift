/// Noise SymmetricState (spec §5.2) with SHA-256: chaining key, handshake
/// hash, and the cipher state they key.
package struct NoiseSymmetricState: Sendable {
    /// SHA-256 output length.
    package static let hashLength = 32

    /// The chaining key.
    private(set) var chainingKey: [UInt8]
    /// The handshake hash `h`.
    package private(set) var handshakeHash: [UInt8]
    private(set) var cipher = NoiseCipherState()

    /// InitializeSymmetric(protocol_name).
    package init(protocolName: String) {
        let name = Array(protocolName.utf8)
        handshakeHash = name.count <= Self.hashLength ? name + [UInt8](repeating: 0, count: Self.hashLength - name.count) : Sodium.sha256(name)
        chainingKey = handshakeHash
    }

    /// Whether the cipher has a key yet.
    package var hasKey: Bool { cipher.hasKey }

    /// MixKey(ikm).
    package mutating func mixKey(_ ikm: [UInt8]) {
        let outputs = Self.hkdf(chainingKey: chainingKey, ikm: ikm, count: 2)
        chainingKey = outputs[0]
        cipher = NoiseCipherState(key: outputs[1])
    }

    /// MixHash(data).
    package mutating func mixHash(_ data: [UInt8]) {
        handshakeHash = Sodium.sha256(handshakeHash + data)
    }

    /// MixKeyAndHash(ikm), for PSKs.
    package mutating func mixKeyAndHash(_ ikm: [UInt8]) {
        let outputs = Self.hkdf(chainingKey: chainingKey, ikm: ikm, count: 3)
        chainingKey = outputs[0]
        mixHash(outputs[1])
        cipher = NoiseCipherState(key: outputs[2])
    }

    /// EncryptAndHash(plaintext).
    package mutating func encryptAndHash(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let ciphertext = try cipher.encrypt(ad: handshakeHash, plaintext)
        mixHash(ciphertext)
        return ciphertext
    }

    /// DecryptAndHash(ciphertext).
    package mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let plaintext = try cipher.decrypt(ad: handshakeHash, ciphertext)
        mixHash(ciphertext)
        return plaintext
    }

    /// Split(): the initiator's sending and the responder's sending cipher states.
    package func split() -> (initiatorToResponder: NoiseCipherState, responderToInitiator: NoiseCipherState) {
        let outputs = Self.hkdf(chainingKey: chainingKey, ikm: [], count: 2)
        return (NoiseCipherState(key: outputs[0]), NoiseCipherState(key: outputs[1]))
    }

    /// The label the datagram path's keys are derived under (issue 26).
    package static let datagramLabel = Array("peerd datagram v1".utf8)

    /// The datagram path's keys (issue 26): HKDF(ck, "peerd datagram v1"),
    /// two outputs, at the end of the handshake, beside Split(). Split()
    /// runs HKDF with an empty input, so these keys share nothing with the
    /// transport's, and their nonces (the datagrams' own counters) never
    /// meet the transport's.
    package func datagramKeys() -> (initiatorToResponder: [UInt8], responderToInitiator: [UInt8]) {
        let outputs = Self.hkdf(chainingKey: chainingKey, ikm: Self.datagramLabel, count: 2)
        return (outputs[0], outputs[1])
    }

    /// The label a session's bulk lane key is derived under (issue 44;
    /// docs/protocol.md §12).
    package static let laneLabel = Array("peerd bulk lane v1".utf8)

    /// The bulk lane's pre-shared key: HKDF(ck, "peerd bulk lane v1"), its
    /// first output, at the end of the session's handshake. Only the
    /// session's two ends know `ck`, so only they can open a lane bound to
    /// it (a `Noise_NNpsk0` handshake under this key).
    package func laneKey() -> [UInt8] {
        Self.hkdf(chainingKey: chainingKey, ikm: Self.laneLabel, count: 1)[0]
    }

    /// HKDF with HMAC-SHA256 as Noise defines it (spec §4.3), 1 to 3 outputs.
    static func hkdf(chainingKey: [UInt8], ikm: [UInt8], count: Int) -> [[UInt8]] {
        let tempKey = Sodium.hmacSHA256(key: chainingKey, ikm)
        var outputs: [[UInt8]] = []
        var previous: [UInt8] = []
        for index in 1...count {
            previous = Sodium.hmacSHA256(key: tempKey, previous + [UInt8(index)])
            outputs.append(previous)
        }
        return outputs
    }
}
