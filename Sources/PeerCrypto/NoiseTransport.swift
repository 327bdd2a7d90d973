import PeerCore
internal import PeerProtocol

/// The Noise side of one session (docs/protocol.md §3, §4): the
/// `Noise_XX_25519_ChaChaPoly_SHA256` handshake, then the two cipher states
/// that seal and open every later frame. It holds keys and nonces, and
/// does no I/O.
package struct NoiseTransport {
    /// The Noise prologue: binds the wire version into the handshake, so
    /// mismatched versions fail at once.
    package static let prologue = Array("peerd/\(PeerdVersion.wire)".utf8)

    /// What the handshake proved, once it is complete.
    package struct Proof: Sendable, Equatable {
        /// The remote's static public key.
        package let remoteStatic: [UInt8]
        /// The handshake hash (the pairing binds to it).
        package let handshakeHash: [UInt8]
        /// What the remote said of itself (``PeerHello/silent`` when its
        /// payload was empty).
        package let hello: PeerHello
    }

    private var handshake: NoiseHandshakeState
    /// Our payload for the handshake message that carries our static key
    /// (message 2 as responder, 3 as initiator).
    private let ownHello: [UInt8]
    /// The remote's, once the message carrying its static key came.
    private var remoteHello: PeerHello?
    private var sendCipher: NoiseCipherState?
    private var receiveCipher: NoiseCipherState?
    /// The datagram path's ciphers (send, receive), made with the
    /// transport's at the end of the handshake, until the session's
    /// datagram path takes them (``takeDatagramCiphers()``).
    private var datagramCiphers: (send: DatagramCipher, receive: DatagramCipher)?
    /// The bulk lane's pre-shared key (docs/protocol.md §12), made at the
    /// end of the handshake from its chaining key, which is not kept.
    package private(set) var laneKey: [UInt8]?

    /// A fresh XX handshake. XX has no pre-messages, so the only way the
    /// state can fail to be made (a pre-message key missing) cannot happen.
    /// `hello` is what this side says of itself (``LocalHello/ours``); nil
    /// says nothing, as 0.1.0 did (the tests' old peers).
    package init(initiator: Bool, identity: IdentityKey, hello: PeerHello? = LocalHello.ours) {
        ownHello = hello?.encode() ?? []
        do {
            handshake = try NoiseHandshakeState(pattern: .xx, initiator: initiator, prologue: Self.prologue,
                                                localStatic: NoiseKeyPair(secretKey: identity.secretKey))
        } catch {
            preconditionFailure("Noise XX needs no pre-message keys, yet: \(error)")
        }
    }

    /// Whether the handshake is still running (frames are handshake messages).
    package var isHandshaking: Bool { !handshake.isComplete }

    /// The initiator's first handshake message (its payload is empty: it
    /// is sent in the clear, before anything is authenticated).
    package mutating func firstMessage() throws(NoiseError) -> [UInt8] {
        try handshake.writeMessage([])
    }

    /// Reads one handshake message. Returns the frame to answer with, if it
    /// is our turn, and the proof once the handshake completed (the cipher
    /// states are then ready).
    /// A hello that cannot be read fails the handshake (``NoiseError/payload(_:)``).
    package mutating func readHandshake(_ frame: [UInt8]) throws(NoiseError) -> (reply: [UInt8]?, proof: Proof?) {
        let payload = try handshake.readMessage(frame)
        // The message that brings the remote's static key carries its hello
        // (message 2 to the initiator, 3 to the responder); message 1's
        // payload is ignored, as 0.1.0 ignored every payload.
        if handshake.remoteStatic != nil, remoteHello == nil {
            do { remoteHello = try PeerHello.decode(payload) } catch { throw .payload(error.description) }
        }
        let reply = handshake.isOurTurn ? try handshake.writeMessage(ownHello) : nil
        guard handshake.isComplete else { return (reply, nil) }
        let split = try handshake.split()
        sendCipher = split.send
        receiveCipher = split.receive
        var keys = try handshake.datagramKeys()
        datagramCiphers = (DatagramCipher(key: &keys.send), DatagramCipher(key: &keys.receive))
        laneKey = try handshake.laneKey()
        return (reply, Proof(remoteStatic: handshake.remoteStatic ?? [], handshakeHash: handshake.handshakeHash, hello: remoteHello ?? .silent))
    }

    /// Encrypts one message after the handshake; nil before it.
    package mutating func seal(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8]? {
        guard var cipher = sendCipher else { return nil }
        let sealed = try cipher.encrypt(ad: [], plaintext)
        sendCipher = cipher
        return sealed
    }

    /// Decrypts one frame after the handshake, in place, where it was read:
    /// the plaintext's length (it starts the frame), or nil before the
    /// handshake is done.
    package mutating func open(_ frame: UnsafeMutableRawBufferPointer) throws(NoiseError) -> Int? {
        guard receiveCipher != nil else { return nil }
        return try receiveCipher!.openInPlace(frame)
    }

    /// Hands the datagram ciphers over, once: nil before the handshake
    /// and after the first call (one datagram path per session).
    package mutating func takeDatagramCiphers() -> (send: DatagramCipher, receive: DatagramCipher)? {
        defer { datagramCiphers = nil }
        return datagramCiphers
    }

    /// Hands the sending cipher state over, once the handshake is done (the
    /// session's ``SealLane`` then owns it; ``seal(_:)`` here returns nil
    /// after); nil before the handshake, or once handed over.
    package mutating func takeSendCipher() -> NoiseCipherState? {
        defer { sendCipher = nil }
        return sendCipher
    }

    /// Seals, in place, the `count` plaintext bytes at `offset` of a frame
    /// being built (room for the tag after them); false before the handshake.
    package mutating func seal(_ frame: inout [UInt8], offset: Int, count: Int) throws(NoiseError) -> Bool {
        guard sendCipher != nil else { return false }
        try sendCipher!.sealInPlace(&frame, offset: offset, count: count)
        return true
    }
}
