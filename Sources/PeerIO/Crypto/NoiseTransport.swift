import PeerCore

/// The Noise side of one session (docs/protocol.md §3, §4): the
/// `Noise_XX_25519_ChaChaPoly_SHA256` handshake, then the two cipher states
/// that seal and open every later frame. It holds keys and nonces, and
/// does no I/O.
public struct NoiseTransport {
    /// The Noise prologue: binds the wire version into the handshake, so
    /// mismatched versions fail at once.
    public static let prologue = Array("peerd/1".utf8)

    /// What the handshake proved, once it is complete.
    public struct Proof: Sendable, Equatable {
        /// The remote's static public key.
        public let remoteStatic: [UInt8]
        /// The handshake hash (the pairing binds to it).
        public let handshakeHash: [UInt8]
    }

    private var handshake: NoiseHandshakeState
    private var sendCipher: NoiseCipherState?
    private var receiveCipher: NoiseCipherState?

    /// A fresh XX handshake. XX has no pre-messages, so the only way the
    /// state can fail to be made (a pre-message key missing) cannot happen.
    public init(initiator: Bool, identity: IdentityKey) {
        do {
            handshake = try NoiseHandshakeState(pattern: .xx, initiator: initiator, prologue: Self.prologue,
                                                localStatic: NoiseKeyPair(secretKey: identity.secretKey))
        } catch {
            preconditionFailure("Noise XX needs no pre-message keys, yet: \(error)")
        }
    }

    /// Whether the handshake is still running (frames are handshake messages).
    public var isHandshaking: Bool { !handshake.isComplete }

    /// The initiator's first handshake message.
    public mutating func firstMessage() throws(NoiseError) -> [UInt8] {
        try handshake.writeMessage([])
    }

    /// Reads one handshake message. Returns the frame to answer with, if it
    /// is our turn, and the proof once the handshake completed (the cipher
    /// states are then ready).
    public mutating func readHandshake(_ frame: [UInt8]) throws(NoiseError) -> (reply: [UInt8]?, proof: Proof?) {
        _ = try handshake.readMessage(frame)
        let reply = handshake.isOurTurn ? try handshake.writeMessage([]) : nil
        guard handshake.isComplete else { return (reply, nil) }
        let split = try handshake.split()
        sendCipher = split.send
        receiveCipher = split.receive
        return (reply, Proof(remoteStatic: handshake.remoteStatic ?? [], handshakeHash: handshake.handshakeHash))
    }

    /// Encrypts one message after the handshake; nil before it.
    public mutating func seal(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8]? {
        guard var cipher = sendCipher else { return nil }
        let sealed = try cipher.encrypt(ad: [], plaintext)
        sendCipher = cipher
        return sealed
    }

    /// Decrypts one frame after the handshake, in place, where it was read:
    /// the plaintext's length (it starts the frame), or nil before the
    /// handshake is done.
    public mutating func open(_ frame: UnsafeMutableRawBufferPointer) throws(NoiseError) -> Int? {
        guard receiveCipher != nil else { return nil }
        return try receiveCipher!.openInPlace(frame)
    }

    /// Seals, in place, the `count` plaintext bytes at `offset` of a frame
    /// being built (room for the tag after them); false before the handshake.
    public mutating func seal(_ frame: inout [UInt8], offset: Int, count: Int) throws(NoiseError) -> Bool {
        guard sendCipher != nil else { return false }
        try sendCipher!.sealInPlace(&frame, offset: offset, count: count)
        return true
    }
}
