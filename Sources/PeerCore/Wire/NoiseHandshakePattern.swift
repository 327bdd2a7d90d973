/// A Noise handshake pattern: pre-messages and message token lists.
///
/// peerd speaks XX; NN, KK, IK and XXpsk3 are here so the implementation is
/// checked against every published vector of the 25519/ChaChaPoly/SHA256 suite.
package struct NoiseHandshakePattern: Sendable, Equatable {
    /// The pattern name with modifiers, such as `XX` or `XXpsk3`.
    package let name: String
    /// Tokens of the initiator's pre-message (only `s` is used here).
    package let initiatorPreMessage: [NoiseToken]
    /// Tokens of the responder's pre-message.
    package let responderPreMessage: [NoiseToken]
    /// Message token lists, alternating initiator → responder, starting with the initiator.
    package let messages: [[NoiseToken]]

    /// Whether a `psk` modifier is present (ephemeral keys are then mixed into the key).
    package var usesPSK: Bool { messages.contains { $0.contains(.psk) } }

    /// `Noise_XX_25519_ChaChaPoly_SHA256`: mutual authentication, static keys sent encrypted.
    package static let xx = NoiseHandshakePattern(name: "XX", initiatorPreMessage: [], responderPreMessage: [],
                                                 messages: [[.e], [.e, .ee, .s, .es], [.s, .se]])
    /// NN: no static keys.
    package static let nn = NoiseHandshakePattern(name: "NN", initiatorPreMessage: [], responderPreMessage: [],
                                                 messages: [[.e], [.e, .ee]])
    /// KK: both static keys known in advance.
    package static let kk = NoiseHandshakePattern(name: "KK", initiatorPreMessage: [.s], responderPreMessage: [.s],
                                                 messages: [[.e, .es, .ss], [.e, .ee, .se]])
    /// IK: the responder's static key known in advance.
    package static let ik = NoiseHandshakePattern(name: "IK", initiatorPreMessage: [], responderPreMessage: [.s],
                                                 messages: [[.e, .es, .s, .ss], [.e, .ee, .se]])
    /// XXpsk3: XX with a PSK mixed at the end of the third message.
    package static let xxpsk3 = NoiseHandshakePattern(name: "XXpsk3", initiatorPreMessage: [], responderPreMessage: [],
                                                     messages: [[.e], [.e, .ee, .s, .es], [.s, .se, .psk]])

    /// NNpsk0: no static keys, a PSK mixed before the first ephemeral. The
    /// bulk lane's handshake (issue 44, docs/protocol.md §12): the PSK is
    /// the lane key, which only a session's two ends can derive; fresh
    /// ephemerals give each lane its own keys.
    package static let nnpsk0 = NoiseHandshakePattern(name: "NNpsk0", initiatorPreMessage: [], responderPreMessage: [],
                                                     messages: [[.psk, .e], [.e, .ee]])

    /// Every pattern this build knows.
    package static let all = [xx, nn, kk, ik, xxpsk3, nnpsk0]

    /// The pattern of a full protocol name such as `Noise_XX_25519_ChaChaPoly_SHA256`;
    /// nil for another pattern or suite.
    package static func named(_ protocolName: String) -> NoiseHandshakePattern? {
        let parts = protocolName.split(separator: "_")
        guard parts.count == 5, parts[0] == "Noise", parts[2] == "25519", parts[3] == "ChaChaPoly", parts[4] == "SHA256" else { return nil }
        return all.first { $0.name == parts[1] }
    }

    /// The full protocol name for this pattern with peerd's suite.
    package var protocolName: String { "Noise_\(name)_25519_ChaChaPoly_SHA256" }
}
