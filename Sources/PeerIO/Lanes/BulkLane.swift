import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// Who opens a lane: told when it is up or failed, and asked, on the
/// accepting side, for the key of the session a greeting names.
@MainActor
protocol LaneOpener: AnyObject {
    /// The lane's handshake completed.
    func laneUp(_ lane: BulkLane)
    /// The lane failed before it was up (refused, broken, a bad greeting
    /// or handshake).
    func laneFailed(_ lane: BulkLane, _ why: String)
    /// The key of the session whose `laneOffer` carried `token`, or nil
    /// when no session offered it (the lane is then closed).
    func laneKey(for token: [UInt8], lane: BulkLane) -> [UInt8]?
}

/// Who a lane that is up carries bytes for: its session.
@MainActor
protocol LaneTraffic: AnyObject {
    /// One plaintext message arrived on the lane (valid only during the
    /// call). Returns whether to go on reading.
    func lane(received plaintext: UnsafeRawBufferPointer) -> Bool
    /// The lane has room for bulk frames again.
    func laneHasRoom()
    /// The lane broke after it was up: the session ends with these words,
    /// as a protocol error when `corrupt` (a frame that did not open), else
    /// as a connection that broke.
    func laneBroke(_ why: String, corrupt: Bool)
}

/// A session's bulk lane (issue 44; docs/protocol.md §12): a TCP
/// connection of its own for file and stream bytes, keyed from the session
/// by a `Noise_NNpsk0_25519_ChaChaPoly_SHA256` handshake whose pre-shared
/// key only the session's two ends can derive. The socket and the
/// handshake's frames go through a ``SessionTransport``, as the session's
/// do; once up, its reading is a ``LaneReader``'s and its sending a
/// ``FrameSender`` sized for throughput (``highWater``) whose sealer
/// writes each frame itself (``LaneSocketWriter``), since nothing small
/// waits behind it here.
@MainActor
final class BulkLane {
    /// Bulk bytes queued (to the socket and on the sealer) past which the
    /// lane's senders wait. On the session 16 KiB keeps a message's wait
    /// short; here only bulk waits behind bulk, and several chunks queued
    /// keep the sealer's thread and the socket busy at once.
    static let highWater = 1 << 20
    /// Bytes the lane's socket may hold unsent (`TCP_NOTSENT_LOWAT`): the
    /// kernel's queue, not ours, absorbs the peer's pace.
    static let unsentLimit = 4 << 20
    /// How long a lane has to connect and finish its handshake: the
    /// plan's own limit (``BulkLanePlan/openWithin``).
    static let deadlineSeconds: TimeInterval = BulkLanePlan.openWithin

    /// Where it stands.
    private enum Phase {
        /// Dialled: connecting, then greeted, waiting for message 2.
        case dialing(NoiseHandshakeState)
        /// Accepted: waiting for the greeting.
        case accepted
        /// Up: frames are the session's bulk.
        case up
        /// Closed or failed.
        case closed
    }

    /// A number for logs.
    let number: Int
    /// The token of the session it is for (nil on an accepted lane until its greeting).
    private(set) var token: [UInt8]?
    /// The peer's address, for logs and per-address limits.
    let remoteHost: String
    /// When it was made: an accepted lane that is not up by its deadline closes.
    let startedAt: Date
    weak var opener: (any LaneOpener)?
    weak var traffic: (any LaneTraffic)?
    private var phase: Phase
    /// Set once in init; implicitly unwrapped only because it reports to `self`.
    private var transport: SessionTransport!
    /// The sending half, armed at the end of the handshake.
    private(set) var frames: FrameSender!
    /// The receiving half once up: its own thread reads and opens frames.
    private var reader: LaneReader?
    /// The thread that reads every lane (its reader registers there).
    private let poller: LanePoller
    private let clock: DaemonClock

    /// Dials the peer's lane at `endpoint` for the session keyed `key`,
    /// whose offer carried `token`.
    init(number: Int, dialing endpoint: Endpoint, token: [UInt8], key: [UInt8], opener: any LaneOpener, poller: LanePoller,
         clock: DaemonClock) throws(SystemError) {
        self.number = number
        self.poller = poller
        self.token = token
        self.opener = opener
        self.clock = clock
        remoteHost = endpoint.address
        startedAt = clock.now()
        do {
            phase = .dialing(try NoiseHandshakeState(pattern: .nnpsk0, initiator: true, prologue: LaneGreeting.prologue(token: token),
                                                     localStatic: nil, psks: [key]))
        } catch {
            preconditionFailure("NNpsk0 needs no pre-message keys, yet: \(error)")
        }
        let fd = try TCPConnector.startConnect(to: endpoint)
        Self.tune(fd)
        transport = SessionTransport(descriptor: fd, connecting: true, sendLimit: Self.highWater, delegate: self, clock: clock)
        frames = FrameSender(transport: transport, highWater: Self.highWater, owner: self)
    }

    /// Takes a connection accepted on the lane port; its greeting names
    /// the session (``LaneOpener/laneKey(for:lane:)``).
    init(number: Int, accepted fd: FileDescriptor, opener: any LaneOpener, poller: LanePoller, clock: DaemonClock) {
        self.number = number
        self.poller = poller
        self.opener = opener
        self.clock = clock
        remoteHost = TCPConnector.plainHost(TCPConnector.peerAddress(fd))
        startedAt = clock.now()
        phase = .accepted
        Self.tune(fd)
        transport = SessionTransport(descriptor: fd, connecting: false, sendLimit: Self.highWater, delegate: self, clock: clock)
        frames = FrameSender(transport: transport, highWater: Self.highWater, owner: self)
    }

    /// A lane's socket keeps more unsent than a session's (``unsentLimit``).
    private static func tune(_ fd: FileDescriptor) {
        // A failure leaves the session's smaller limit: slower, not wrong.
        try? TCPConnector.setUnsentLimit(fd, unsentLimit)
    }

    /// Whether its handshake is done and it carries bulk.
    var isUp: Bool { if case .up = phase { true } else { false } }

    /// Bytes of bulk frames that may be queued now.
    var room: Int { isUp && !transport.isClosing ? frames.room : 0 }

    /// Sends one plaintext message (a `block`, `fileEnd` or `streamEnd`).
    func send(_ plaintext: [UInt8]) { if isUp { frames.send(plaintext) } }

    /// Closes it: what is queued goes out first, within the transport's linger.
    func close() {
        if case .closed = phase { return }
        phase = .closed
        reader?.stop()
        frames.stop()
        transport.closeAfterSending()
    }

    /// Clock tick; returns whether its socket is closed.
    @discardableResult
    func tick(now: Date) -> Bool {
        if case .closed = phase { return transport.tick(now: now) }
        if isUp, transport.isStalled(now: now) {
            broke("the peer has not read the lane for \(Int(transport.stallTimeout)) s")
            return false
        }
        if !isUp, now.timeIntervalSince(startedAt) >= Self.deadlineSeconds {
            failed("its handshake did not finish within \(Int(Self.deadlineSeconds)) s")
            return false
        }
        transport.tickFrames()
        reader?.settle()
        return false
    }

    private func failed(_ why: String, corrupt: Bool = false) {
        let wasUp = isUp
        guard !{ if case .closed = phase { true } else { false } }() else { return }
        close()
        if wasUp { traffic?.laneBroke(why, corrupt: corrupt) } else { opener?.laneFailed(self, why) }
    }

    private func broke(_ why: String) { failed(why) }

    /// The handshake's end: keys split, frames may flow, and the lane's
    /// reader takes the socket's reading over (with what was read past
    /// the handshake). Called while the handshake's last frame is handled.
    private func finishHandshake(_ state: NoiseHandshakeState) throws(NoiseError) {
        let split = try state.split()
        do {
            reader = try LaneReader(socket: transport.descriptor, cipher: split.receive, unread: transport.handOverReading(),
                                    poller: poller) { [weak self] report in
                self?.received(report)
            }
            frames.arm(split.send, writer: try LaneSocketWriter(socket: transport.descriptor))
        } catch {
            throw .payload("the lane's reader or writer could not start: \(error)")
        }
        phase = .up
        opener?.laneUp(self)
    }

    /// What the reader brought: frames for the session, in order, or the lane's end.
    private func received(_ report: LaneReader.Report) {
        switch report {
        case .batch(let batch):
            if isUp {
                batch.withBytes { raw in
                    for range in batch.frames {
                        guard isUp, traffic?.lane(received: UnsafeRawBufferPointer(rebasing: raw[range])) == true else { return }
                    }
                }
            }
            reader?.done(with: batch)
        case .ended(let why, let corrupt):
            failed(why, corrupt: corrupt)
        }
    }

    private func handle(_ frame: UnsafeMutableRawBufferPointer) -> Bool {
        switch phase {
        case .accepted:
            guard let greeting = LaneGreeting.parse(Array(frame)) else {
                failed("its first frame is not a lane greeting")
                return false
            }
            token = greeting.token
            guard let key = opener?.laneKey(for: greeting.token, lane: self) else {
                failed("its token names no session that offered a lane")
                return false
            }
            do {
                var state = try NoiseHandshakeState(pattern: .nnpsk0, initiator: false, prologue: LaneGreeting.prologue(token: greeting.token),
                                                    localStatic: nil, psks: [key])
                guard try state.readMessage(greeting.handshake).isEmpty else { throw NoiseError.payload("a lane handshake carries no payload") }
                transport.send(frame: try state.writeMessage([]))
                try finishHandshake(state)
            } catch {
                failed("its handshake failed: \(error)")
            }
            // The reader reads on from here.
            return false
        case .dialing(var state):
            do {
                guard try state.readMessage(Array(frame)).isEmpty else { throw NoiseError.payload("a lane handshake carries no payload") }
                try finishHandshake(state)
            } catch {
                failed("its handshake failed: \(error)")
            }
            // The reader reads on from here.
            return false
        case .up, .closed:
            return false
        }
    }
}

extension BulkLane: SessionTransportDelegate {
    /// The dial connected: the greeting goes out.
    func transportConnected() {
        guard case .dialing(var state) = phase, let token else { return }
        do {
            let first = try state.writeMessage([])
            phase = .dialing(state)
            transport.send(frame: LaneGreeting(token: token, handshake: first).bytes)
        } catch {
            failed("its handshake failed: \(error)")
        }
    }

    func transportConnectFailed(_ reason: String) { failed("connect to \(remoteHost): \(reason)") }

    func transportBytesArrived() {}

    func transportReceived(_ frame: UnsafeMutableRawBufferPointer) -> Bool { handle(frame) }

    func transportBroke(_ why: String) { failed(why) }

    func transportHasRoom() { if isUp { traffic?.laneHasRoom() } }

    func transportCorrupt(_ why: String) { failed(why) }
}

extension BulkLane: FrameSenderOwner {
    func senderFailed(_ why: String) { failed(why) }

    func senderHasRoom() { if isUp { traffic?.laneHasRoom() } }
}
