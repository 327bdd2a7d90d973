/// The first frame on a bulk lane (docs/protocol.md §12), from the side
/// that dialled it: the magic `peerdln1`, the session's lane token, and the
/// first message of the lane's `Noise_NNpsk0_25519_ChaChaPoly_SHA256`
/// handshake (an ephemeral key and an empty payload's tag: 48 bytes).
/// Exactly 72 bytes, in one frame (u16 length 72, then these).
///
/// The lane's own port takes nothing else, so a frame that is not this,
/// or a token no session offered, ends the connection before any key
/// work beyond the one handshake message.
package struct LaneGreeting: Equatable, Sendable {
    /// `peerdln1`: a lane, version 1 of its layout.
    package static let magic: [UInt8] = Array("peerdln1".utf8)
    /// The first handshake message's length: `e` (32) and an empty payload's tag (16).
    package static let handshakeLength = 48
    /// The whole frame's payload length.
    package static let length = magic.count + LaneOffer.tokenLength + handshakeLength
    /// The prologue's fixed part (``prologue(token:)``).
    package static let prologueLabel: [UInt8] = Array("peerd-lane/1".utf8)

    /// The session's lane token (from its `laneOffer`).
    package var token: [UInt8]
    /// The handshake's first message.
    package var handshake: [UInt8]

    /// A greeting of `token` with the handshake's first message.
    package init(token: [UInt8], handshake: [UInt8]) {
        self.token = token
        self.handshake = handshake
    }

    /// The frame's payload (without its length prefix).
    package var bytes: [UInt8] { Self.magic + token + handshake }

    /// Reads a first frame's payload; nil when it is not a lane greeting
    /// (its length, or its magic, is wrong).
    package static func parse(_ payload: [UInt8]) -> LaneGreeting? {
        guard payload.count == length, Array(payload.prefix(magic.count)) == magic else { return nil }
        let token = Array(payload[magic.count..<(magic.count + LaneOffer.tokenLength)])
        return LaneGreeting(token: token, handshake: Array(payload.suffix(handshakeLength)))
    }

    /// The lane handshake's prologue: `peerd-lane/1` and the token, so a
    /// handshake meant for one session fails against another.
    package static func prologue(token: [UInt8]) -> [UInt8] { prologueLabel + token }
}
