import PeerCore
import PeerProtocol

/// What a session sends: messages, sealed into frames, and bulk frames
/// built in place (issue 12, point 8), with the room bulk frames may take,
/// on the session's own connection or on its bulk lane (``BulkPath``).
extension PeerSession {
    /// Queued bytes past which bulk frames wait on the session's own
    /// connection (``bulkRoom``). A bulk frame is built only while less
    /// than this is queued, so a message, ping or control frame queued
    /// after it waits behind at most one bulk frame (and this much) in
    /// userspace (issue 25, point 3); the kernel holds at most
    /// ``TCPConnector/unsentLimit`` unsent. The next bulk frame is built as
    /// soon as the last one has gone to the kernel (``SessionTransport``
    /// asks for it inside the same flush). A lane has its own, larger
    /// mark (``BulkLane/highWater``): nothing small waits behind it.
    package static let bulkHighWater = 16 * 1024

    /// The sender file and stream bytes go through: the lane's when the
    /// session's bulk is on one (and `lane` allows it), else the session's own.
    private func bulkFrames(lane allowed: Bool = true) -> FrameSender? {
        switch bulkPath {
        case .lane(let lane): allowed ? lane.frames : frames
        case .stream: frames
        case .opening: nil
        }
    }

    /// Bytes of bulk frames that may be queued now (0 when the session
    /// cannot carry them, or while its lane is being opened): bytes queued
    /// to the socket and bulk work queued on the sealer both count. The
    /// owner is told when there is room again
    /// (``PeerSessionDelegate/sessionCanSendBulk(_:)``).
    package var bulkRoom: Int {
        guard isConnected else { return 0 }
        return switch bulkPath {
        case .lane(let lane): lane.room
        case .stream: frames.room
        case .opening: 0
        }
    }

    /// Sends one transfer or stream message (docs/protocol.md §8): on the
    /// lane when it is one that follows the flow's bytes there
    /// (``BulkMessage/ridesLane``).
    package func sendBulk(_ message: BulkMessage) { sendBulk(message, lane: true) }

    /// Sends one transfer or stream message; on the session's own
    /// connection when `lane` is false (an app's stream, protocol.md §12).
    package func sendBulk(_ message: BulkMessage, lane allowed: Bool) {
        guard isConnected else { return }
        if allowed, message.ridesLane, case .lane(let lane) = bulkPath { return lane.send(WireCodec.encode(.bulk(message))) }
        transmit(.bulk(message))
    }

    /// Sends an opening of `app`'s flow (an `offer` part or a `streamOpen`):
    /// the default app's goes as it is, another app's inside `appFlow`
    /// under the app's number, bound first if it is new (protocol.md §10).
    /// Returns false, sending nothing, when the peer cannot carry `app`.
    @discardableResult
    package func sendBulk(_ message: BulkMessage, app: AppName) -> Bool {
        guard isConnected else { return false }
        if app.isDefault {
            guard carriesDefault else { return false }
            // A stream's opening goes where its bytes will (§12): while the
            // lane opens it waits, so no byte of it can overtake it.
            if case .streamOpen = message, isOpeningLane {
                heldOpenings.append(message)
                return true
            }
            sendBulk(message)
            return true
        }
        guard carriesApps, AppMessage.opensFlow(message), let binding = appBindings.outgoingNumber(for: app) else { return false }
        if binding.announce { transmit(.app(.open(number: binding.number, name: app.text))) }
        transmit(.app(.flow(number: binding.number, opening: message)))
        return true
    }

    /// Encrypts and queues one message on the session's own connection
    /// (nothing before the handshake is done).
    func transmit(_ message: WireMessage) {
        // A pong is what a peer makes us send by asking: bounded on its own.
        let answer = if case .pong = message { true } else { false }
        frames.send(WireCodec.encode(message), answer: answer)
    }

    /// Builds one bulk frame in place (issue 12, point 8): `write` puts up
    /// to `capacity` plaintext bytes straight into the frame (a pipe's
    /// bytes are read into it, not copied there) and says how many, or nil
    /// to send nothing; the frame is then encrypted where it is (on the
    /// sealer's thread, when large) and queued as it is. Returns the
    /// plaintext bytes sent.
    @discardableResult
    package func transmitBulk(capacity: Int, lane: Bool = true, write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        guard isConnected, let bulkFrames = bulkFrames(lane: lane) else { return nil }
        return bulkFrames.transmitBulk(capacity: capacity, write: write)
    }

    /// Builds one bulk frame on the sealer's thread, off the main actor
    /// (issue 25, point 2): there `fill` writes up to `capacity` plaintext
    /// bytes into it (a file's bytes, read and hashed there) and says how
    /// many, and the frame is sealed. Nil from `fill` sends nothing, and
    /// `dropped` runs on the main actor (the filler recorded why). A
    /// `capacity` of 0 is work alone, in its place in the order: it sends
    /// nothing. `cost` bytes count against ``bulkRoom`` until it has run.
    /// False, with nothing queued, when the session cannot carry it.
    @discardableResult
    package func transmitBulkLater(capacity: Int, cost: Int, fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?,
                                  dropped: @escaping @MainActor @Sendable () -> Void) -> Bool {
        guard isConnected, let bulkFrames = bulkFrames() else { return false }
        return bulkFrames.transmitBulkLater(capacity: capacity, cost: cost, fill: fill, dropped: dropped)
    }

    /// Sends a transfer or stream message made on the sealer's thread,
    /// after the work queued there before it (a block's hash, once its
    /// bytes are hashed): nil from `make` sends nothing. It goes the way
    /// the flow's bytes go.
    package func sendBulkLater(_ make: @escaping @Sendable () -> BulkMessage?) {
        guard isConnected, let bulkFrames = bulkFrames() else { return }
        bulkFrames.sendLater { make().map { WireCodec.encode(.bulk($0)) } }
    }
}
