import PeerCore

/// What a session sends: messages, sealed into frames, and bulk frames
/// built in place (issue 12, point 8), with the room bulk frames may take.
extension PeerSession {
    /// Queued bytes past which bulk frames wait (``bulkRoom``). A bulk
    /// frame is built only while less than this is queued, so a message,
    /// ping or control frame queued after it waits behind at most one bulk
    /// frame (and this much) in userspace (issue 25, point 3); the kernel
    /// holds at most ``TCPConnector/unsentLimit`` unsent. The next bulk
    /// frame is built as soon as the last one has gone to the kernel
    /// (``SessionTransport`` asks for it inside the same flush).
    public static let bulkHighWater = 16 * 1024

    /// Bytes of bulk frames that may be queued now (0 when the session
    /// cannot carry them). The owner is told when there is room again
    /// (``PeerSessionDelegate/sessionCanSendBulk(_:)``).
    public var bulkRoom: Int { isConnected ? max(0, Self.bulkHighWater - transport.queuedBytes) : 0 }

    /// Sends one transfer or stream message (docs/protocol.md §8).
    public func sendBulk(_ message: BulkMessage) {
        guard isConnected else { return }
        transmit(.bulk(message))
    }

    /// Sends an opening of `app`'s flow (an `offer` part or a `streamOpen`):
    /// the default app's goes as it is, another app's inside `appFlow`
    /// under the app's number, bound first if it is new (protocol.md §10).
    /// Returns false, sending nothing, when the peer cannot carry `app`.
    @discardableResult
    public func sendBulk(_ message: BulkMessage, app: AppName) -> Bool {
        guard isConnected else { return false }
        if app.isDefault {
            guard carriesDefault else { return false }
            transmit(.bulk(message))
            return true
        }
        guard carriesApps, AppMessage.opensFlow(message), let binding = appBindings.outgoingNumber(for: app) else { return false }
        if binding.announce { transmit(.app(.open(number: binding.number, name: app.text))) }
        transmit(.app(.flow(number: binding.number, opening: message)))
        return true
    }

    /// Encrypts and queues one message (nothing before the handshake is done).
    func transmit(_ message: WireMessage) {
        let plaintext = WireCodec.encode(message)
        var frame = [UInt8]()
        frame.reserveCapacity(2 + plaintext.count + NoiseCipherState.tagLength)
        frame += [0, 0]
        frame += plaintext
        frame += [UInt8](repeating: 0, count: NoiseCipherState.tagLength)
        // A pong is what a peer makes us send by asking: bounded on its own.
        let answer = if case .pong = message { true } else { false }
        seal(&frame, count: plaintext.count, answer: answer)
    }

    /// Builds one bulk frame in place (issue 12, point 8): `write` puts up
    /// to `capacity` plaintext bytes straight into the frame (a file's
    /// bytes are read into it, not copied there) and says how many, or nil
    /// to send nothing; the frame is then encrypted where it is and queued
    /// as it is. Returns the plaintext bytes sent.
    @discardableResult
    public func transmitBulk(capacity: Int, write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        guard isConnected else { return nil }
        var frame = transport.takeFrame(count: 2 + capacity + NoiseCipherState.tagLength)
        let count = frame.withUnsafeMutableBytes { raw in write(UnsafeMutableRawBufferPointer(rebasing: raw[2..<(2 + capacity)])) }
        guard let count, count <= capacity else { return nil }
        frame.removeLast(capacity - count)
        seal(&frame, count: count)
        return count
    }

    /// Seals the plaintext at offset 2 of `frame`, writes the length
    /// prefix, and queues it.
    private func seal(_ frame: inout [UInt8], count: Int, answer: Bool = false) {
        do {
            guard try noise.seal(&frame, offset: 2, count: count) else { return }
            let length = count + NoiseCipherState.tagLength
            frame[0] = UInt8(length >> 8)
            frame[1] = UInt8(length & 0xFF)
            transport.send(framed: frame, answer: answer)
        } catch {
            finish(.protocolError, "\(error)")
        }
    }
}
