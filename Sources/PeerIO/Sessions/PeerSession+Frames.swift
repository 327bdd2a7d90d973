import PeerCore
import PeerProtocol

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
    package static let bulkHighWater = 16 * 1024

    /// Plaintexts of at least this many bytes are sealed on the lane
    /// (``SealLane``) even when it is idle: a large frame's sealing leaves
    /// the main actor. Smaller ones are sealed in place while the lane is
    /// idle, which spares them two thread hops.
    static let laneFrame = 16 * 1024

    /// Bytes of bulk frames that may be queued now (0 when the session
    /// cannot carry them): bytes queued to the socket and bulk work queued
    /// on the lane both count. The owner is told when there is room again
    /// (``PeerSessionDelegate/sessionCanSendBulk(_:)``).
    package var bulkRoom: Int { isConnected ? max(0, Self.bulkHighWater - transport.queuedBytes - laneCost) : 0 }

    /// Sends one transfer or stream message (docs/protocol.md §8).
    package func sendBulk(_ message: BulkMessage) {
        guard isConnected else { return }
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
    /// to `capacity` plaintext bytes straight into the frame (a pipe's
    /// bytes are read into it, not copied there) and says how many, or nil
    /// to send nothing; the frame is then encrypted where it is (on the
    /// lane, when large) and queued as it is. Returns the plaintext bytes sent.
    @discardableResult
    package func transmitBulk(capacity: Int, write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        guard isConnected else { return nil }
        var frame = transport.takeFrame(count: 2 + capacity + NoiseCipherState.tagLength)
        let count = frame.withUnsafeMutableBytes { raw in write(UnsafeMutableRawBufferPointer(rebasing: raw[2..<(2 + capacity)])) }
        guard let count, count <= capacity else { return nil }
        frame.removeLast(capacity - count)
        seal(&frame, count: count, cost: count)
        return count
    }

    /// Builds one bulk frame on the lane, off the main actor (issue 25,
    /// point 2): there `fill` writes up to `capacity` plaintext bytes into
    /// it (a file's bytes, read and hashed there) and says how many, and
    /// the frame is sealed. Nil from `fill` sends nothing, and `dropped`
    /// runs on the main actor (the filler recorded why). A `capacity` of 0
    /// is work alone, in its place in the order: it sends nothing. `cost`
    /// bytes count against ``bulkRoom`` until it has run. False, with
    /// nothing queued, when the session cannot carry it.
    @discardableResult
    package func transmitBulkLater(capacity: Int, cost: Int, fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?,
                                  dropped: @escaping @MainActor @Sendable () -> Void) -> Bool {
        guard isConnected else { return false }
        let frame = capacity == 0 ? [] : transport.takeFrame(count: 2 + capacity + NoiseCipherState.tagLength)
        return enqueue(frame, .fill(fill), cost: cost, dropped: dropped)
    }

    /// Sends a transfer or stream message made on the lane, after the work
    /// queued there before it (a block's hash, once its bytes are hashed):
    /// nil from `make` sends nothing.
    package func sendBulkLater(_ make: @escaping @Sendable () -> BulkMessage?) {
        guard isConnected else { return }
        enqueue([], .build({ make().map { WireCodec.encode(.bulk($0)) } }), cost: 0)
    }

    /// Seals the plaintext at offset 2 of `frame`, writes the length
    /// prefix, and queues it: in place while the lane is idle and the
    /// frame small, else on the lane behind what is there (nonces go in
    /// the order frames reach the socket). `cost`: bulk bytes, counted
    /// against ``bulkRoom`` while on the lane.
    private func seal(_ frame: inout [UInt8], count: Int, answer: Bool = false, cost: Int = 0) {
        guard let lane = ownLane() else { return }
        guard laneJobs > 0 || count >= Self.laneFrame else {
            do { try lane.sealNow(&frame, count: count) } catch { return finish(.protocolError, "\(error)") }
            return transport.send(framed: frame, answer: answer)
        }
        enqueue(frame, .ready(count: count), cost: cost, answer: answer)
    }

    /// The lane, made from the sending cipher at the first frame after the
    /// handshake; nil before it (nothing is sealed then).
    private func ownLane() -> SealLane? {
        if lane == nil, let cipher = noise.takeSendCipher() { lane = SealLane(cipher: cipher) }
        return lane
    }

    /// Queues a job on the lane and takes its outcome back in order: a
    /// sealed frame to the socket, a failed seal ends the session, and
    /// bulk work done gives its room back.
    @discardableResult
    private func enqueue(_ frame: consuming [UInt8], _ make: SealLane.Make, cost: Int, answer: Bool = false,
                         dropped: (@MainActor @Sendable () -> Void)? = nil) -> Bool {
        guard let lane = ownLane() else { return false }
        laneJobs += 1
        laneCost += cost
        lane.run(frame, make) { [weak self] outcome in
            guard let self else { return }
            laneJobs -= 1
            laneCost -= cost
            switch outcome {
            case .sealed(let sealed):
                // Its flush asks for the next bulk frame once this one is out.
                transport.send(framed: sealed, answer: answer)
            case .done:
                if cost > 0 { transportHasRoom() }
            case .dropped:
                dropped?()
                if cost > 0 { transportHasRoom() }
            case .failed(let error):
                finish(.protocolError, "\(error)")
            }
        }
        return true
    }
}
