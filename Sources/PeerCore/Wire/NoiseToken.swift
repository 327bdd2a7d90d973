/// One token of a Noise handshake pattern (Noise spec §7).
package enum NoiseToken: String, Sendable, Equatable {
    /// Send or receive an ephemeral public key.
    case e
    /// Send or receive a static public key (encrypted once a key exists).
    case s
    /// DH(e, re).
    case ee
    /// DH between the initiator's ephemeral and the responder's static.
    case es
    /// DH between the initiator's static and the responder's ephemeral.
    case se
    /// DH(s, rs).
    case ss
    /// Mix a pre-shared key.
    case psk
}
