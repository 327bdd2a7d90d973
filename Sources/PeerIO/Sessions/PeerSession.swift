import Dispatch
import FoundationEssentials
import Glibc
import PeerCore

/// One TCP connection to a peer: the Noise XX handshake, then encrypted,
/// length-framed ``WireMessage``s, driven by a ``SessionLifecycle``.
///
/// The socket is non-blocking and serviced by Dispatch sources on the main
/// queue. Output goes through a bounded ``OutboundQueue``; application data
/// beyond ``sendLimit`` queued bytes is refused (the caller gets a `busy`
/// error it can retry), so the daemon never buffers without bound.
@MainActor
public final class PeerSession {
    /// The Noise prologue: binds the wire version into the handshake, so
    /// mismatched versions fail at once.
    nonisolated public static let prologue = Array("peerd/1".utf8)

    /// A number for logs.
    public let number: Int
    /// The peer row this session belongs to, once known.
    public var peerUUID: UUID?
    /// The endpoint dialled (nil for an accepted connection).
    public let endpoint: Endpoint?
    /// The peer id advertised by the peer we dialled.
    public let expectedPeerID: String?
    /// Endpoints left to try after this one (for the owner's retry).
    public let remainingEndpoints: [Endpoint]
    /// The invitation this session carries (invitee side), once asked.
    public var invitationID: String?
    /// A decision request that arrived before `peerUUID` was known.
    public var pendingDecision: (name: String, context: [UInt8], timeout: Int, pairing: Bool)?
    /// Whether the session was opened to pair (either side): it carries
    /// only pairing, ping, pong and close, and ends with the pairing.
    public var isForPairing: Bool { lifecycle.isForPairing }
    /// The pairing running on this session, if any.
    public private(set) var pairing: PairingLifecycle?
    /// The pairing's id for clients.
    public var pairingID: String?
    /// The Noise handshake hash, once the handshake is done.
    public private(set) var handshakeHash: [UInt8] = []
    /// Set when this side also invited (crossing invitations): accept automatically.
    public var autoAccept = false
    /// The remote's proven static key, after the handshake.
    public private(set) var remoteStaticKey: [UInt8]?
    /// The id the remote proved (even when it was not the expected one).
    public private(set) var remotePeerID: String?
    /// The remote address, for logs (with the port, for a dial).
    public private(set) var remoteAddress = "?"
    /// The remote IP address alone, as rows list it (an IPv4 address seen
    /// on a dual-stack socket loses its `::ffff:`): for per-address limits
    /// and for remembering where a paired peer was.
    public let remoteHost: String
    /// The most application bytes queued for sending.
    public let sendLimit: Int
    /// The invitation context sent (inviter side), kept for a retry.
    public let inviteContext: [UInt8]
    /// The invitation timeout (inviter side), kept for a retry.
    public let inviteTimeout: TimeInterval
    /// When the session began (dial or accept).
    public let startedAt: Date
    private let clock: DaemonClock
    /// Whether the remote proved the expected identity.
    public var isAuthenticated: Bool { remoteStaticKey != nil && !mismatched }
    private var mismatched = false

    private weak var delegate: (any PeerSessionDelegate)?
    private var lifecycle: SessionLifecycle
    private var handshake: NoiseHandshakeState
    private var sendCipher: NoiseCipherState?
    private var receiveCipher: NoiseCipherState?
    private var channel: DispatchChannel?
    private var connecting: Bool
    /// Until the session is accepted, no frame may exceed 8 KiB: an
    /// unauthenticated peer cannot make us buffer more.
    private var frames: FrameReader = {
        var reader = FrameReader()
        reader.maxFrame = 8192
        return reader
    }()
    private var outbound: OutboundQueue
    private var finished = false
    private var closeAfterFlush = false
    private var ledger = AckLedger()
    /// When to stop and resume reading as output backs up (``WriteWatermarks``).
    private var watermarks: WriteWatermarks
    private var flushScheduled = false
    /// The most bytes ever queued here, so the owner knows to give memory back.
    public private(set) var peakQueuedBytes = 0
    /// Whether this is a dial whose TCP connect has not completed yet.
    public var isTCPConnecting: Bool { connecting && !finished }
    /// Whether the session is established and may carry data.
    public var isConnected: Bool { lifecycle.canSendData && !finished }
    /// Whether the session is accepted and may carry a pairing.
    public var canCarryPairing: Bool { lifecycle.canCarryPairing && !finished }
    /// The lifecycle phase.
    public var phase: SessionPhase { lifecycle.phase }
    /// Whether the session has ended (or is ending).
    public var isClosed: Bool { lifecycle.isClosed }
    /// Which side this is.
    public var role: SessionLifecycle.Role { lifecycle.role }
    /// Bytes waiting to be written.
    public var queuedBytes: Int { outbound.byteCount }

    /// Dials `endpoint` and invites. Throws if the connect cannot even start.
    public init(number: Int, dialing endpoint: Endpoint, remaining: [Endpoint], expectedPeerID: String?, identity: IdentityKey,
                name: String, context: [UInt8], inviteTimeout: TimeInterval, limits: SessionLifecycle.Limits,
                sendLimit: Int, pairing: Bool = false, delegate: any PeerSessionDelegate, clock: DaemonClock = .system) throws(SystemError) {
        self.clock = clock
        startedAt = clock.now()
        self.number = number
        self.endpoint = endpoint
        remainingEndpoints = remaining
        self.expectedPeerID = expectedPeerID
        self.sendLimit = sendLimit
        self.delegate = delegate
        inviteContext = context
        self.inviteTimeout = inviteTimeout
        lifecycle = SessionLifecycle(inviterAt: clock.now(), name: name, context: context, inviteTimeout: inviteTimeout, limits: limits, pairing: pairing)
        handshake = Self.handshakeState(initiator: true, identity: identity)
        outbound = OutboundQueue(limit: sendLimit)
        watermarks = WriteWatermarks(sendLimit: sendLimit)
        connecting = true
        remoteAddress = endpoint.hostPort
        remoteHost = endpoint.address
        let fd = try TCPConnector.startConnect(to: endpoint)
        attach(fd)
    }

    /// A fresh XX handshake. XX has no pre-messages, so the only way the
    /// state can fail to be made (a pre-message key missing) cannot happen.
    private static func handshakeState(initiator: Bool, identity: IdentityKey) -> NoiseHandshakeState {
        do {
            return try NoiseHandshakeState(pattern: .xx, initiator: initiator, prologue: prologue,
                                           localStatic: NoiseKeyPair(secretKey: identity.secretKey))
        } catch {
            preconditionFailure("Noise XX needs no pre-message keys, yet: \(error)")
        }
    }

    /// Takes an accepted connection; the remote invites us.
    public init(number: Int, accepted fd: FileDescriptor, identity: IdentityKey, limits: SessionLifecycle.Limits,
                sendLimit: Int, delegate: any PeerSessionDelegate, clock: DaemonClock = .system) {
        self.clock = clock
        startedAt = clock.now()
        self.number = number
        endpoint = nil
        remainingEndpoints = []
        expectedPeerID = nil
        self.sendLimit = sendLimit
        self.delegate = delegate
        inviteContext = []
        inviteTimeout = 0
        lifecycle = SessionLifecycle(inviteeAt: clock.now(), limits: limits)
        handshake = Self.handshakeState(initiator: false, identity: identity)
        outbound = OutboundQueue(limit: sendLimit)
        watermarks = WriteWatermarks(sendLimit: sendLimit)
        connecting = false
        remoteAddress = TCPConnector.peerAddress(fd)
        remoteHost = TCPConnector.plainHost(remoteAddress)
        attach(fd)
    }

    /// Clock tick: deadlines and keepalive.
    public func tick(now: Date) {
        if watermarks.isStalled(now: now) {
            fail("the peer has not read what we sent for \(Int(watermarks.stallTimeout)) s (\(outbound.byteCount) bytes waiting)")
            return
        }
        perform(lifecycle.tick(now: now))
        acknowledge(every: 1)
        if var machine = pairing {
            let actions = machine.tick(now: now)
            pairing = machine
            performPairing(actions)
        }
    }

    /// Starts pairing as the initiator on this connected session.
    public func startPairing(nonce: [UInt8], timeout: TimeInterval) {
        guard canCarryPairing, pairing == nil || pairing?.isFinished == true else { return }
        let machine = PairingLifecycle(initiatorWith: handshakeHash, nonce: nonce, now: clock.now(), timeout: timeout, sha256: { Sodium.sha256($0) })
        pairing = machine
        performPairing(machine.start())
    }

    /// Answers the peer's pairing request: commit to `nonce`, or refuse.
    public func answerPairingRequest(accept: Bool, nonce: [UInt8], timeout: TimeInterval, refusal: PairingFailure = .rejected, text: String = "") {
        guard accept else {
            transmit(.pairReject(reason: refusal, text: text))
            return
        }
        let machine = PairingLifecycle(responderWith: handshakeHash, nonce: nonce, now: clock.now(), timeout: timeout, sha256: { Sodium.sha256($0) })
        pairing = machine
        performPairing(machine.start())
    }

    /// Responder: the user typed `code`.
    public func pairingCodeEntered(_ code: String) {
        guard var machine = pairing else { return }
        let actions = machine.userConfirmed(code: code)
        pairing = machine
        performPairing(actions)
    }

    /// Responder: the trust store was written (or not); confirm or reject.
    public func trustStored(_ stored: Bool) {
        guard var machine = pairing else { return }
        let actions = machine.trustStored(stored)
        pairing = machine
        performPairing(actions)
    }

    /// Either side: the user rejected the pairing.
    public func rejectPairing() {
        guard var machine = pairing else { return }
        let actions = machine.userRejected()
        pairing = machine
        performPairing(actions)
    }

    /// Tells the peer we removed our trust in it.
    public func sendUnpair() {
        transmit(.unpair)
    }

    /// A client's decision on the invitation.
    public func decide(accept: Bool) {
        perform(lifecycle.decided(accept: accept, now: clock.now()))
    }

    /// Declines without asking anyone.
    public func declineAutomatically(_ why: String) {
        perform(lifecycle.declineAutomatically(why, now: clock.now()))
    }

    /// Closes the session, telling the peer why.
    public func close(_ why: String, reason: CloseReason = .closedLocally) {
        perform(lifecycle.closeLocally(why, reason: reason))
    }

    /// Sends one application message, fragmented. Returns its number on
    /// this session (1, 2, …; compare with acknowledgements), or nil, sending
    /// nothing, when the queue is too full: the caller retries later.
    @discardableResult
    public func send(_ data: [UInt8]) -> UInt64? {
        guard isConnected, outbound.byteCount + data.count <= sendLimit else { return nil }
        lifecycle.noteSent(now: clock.now())
        for fragment in WireCodec.fragments(of: data) { transmit(fragment) }
        return ledger.send()
    }

    /// Acknowledges what arrived since the last acknowledgement.
    private func acknowledge(every batch: UInt64) {
        guard isConnected, let count = ledger.acknowledgement(every: batch) else { return }
        transmit(.ack(count))
    }

    // MARK: I/O

    private func attach(_ fd: FileDescriptor) {
        let channel = DispatchChannel(descriptor: fd,
                                      onReadable: { [weak self] in self?.readable() },
                                      onWritable: { [weak self] in self?.writable() })
        self.channel = channel
        // A non-blocking connect completes when the socket becomes writable.
        if connecting { channel.armWrite(true) }
    }

    private func connected() {
        connecting = false
        do {
            sendFrame(try handshake.writeMessage([]))
        } catch {
            perform(lifecycle.handshakeFailed("\(error)"))
        }
    }

    private func readable() {
        guard let descriptor = channel?.descriptor, !finished, !connecting else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // Bounded work per wakeup keeps one fast peer from starving the rest.
        for _ in 0..<16 {
            // Output backed up, or the clients are behind: read no more now.
            if watermarks.isPaused || heldForClients { return }
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { raw throws(SystemError) in try descriptor.read(into: raw) }
            } catch {
                perform(lifecycle.transportClosed("\(error)"))
                return
            }
            guard let count else { return }
            if count == 0 {
                perform(lifecycle.transportClosed("the connection was closed"))
                return
            }
            lifecycle.bytesArrived()
            let complete: [[UInt8]]
            do { complete = try frames.append(buffer[0..<count]) } catch {
                fail("\(error)")
                return
            }
            for frame in complete {
                guard !finished else { return }
                received(frame)
            }
            // A bad length that came after those frames, now that they are handled.
            do { _ = try frames.append([UInt8]()) } catch {
                fail("\(error)")
                return
            }
        }
    }

    private func received(_ frame: [UInt8]) {
        if !handshake.isComplete {
            do {
                _ = try handshake.readMessage(frame)
                if handshake.isOurTurn { sendFrame(try handshake.writeMessage([])) }
                if handshake.isComplete { handshakeDone() }
            } catch {
                perform(lifecycle.handshakeFailed("\(error)"))
            }
            return
        }
        guard var cipher = receiveCipher else { return }
        do {
            let plaintext = try cipher.decrypt(ad: [], frame)
            receiveCipher = cipher
            let message = try WireCodec.decode(plaintext)
            switch message {
            case .ack(let count):
                guard lifecycle.canSendData, ledger.accepts(count) else {
                    fail("an acknowledgement of \(count) messages, but \(ledger.sent) were sent")
                    return
                }
                lifecycle.noteReceived(now: clock.now())
                delegate?.session(self, acknowledged: count)
            case .pairRequest, .pairCommit, .pairNonce, .pairReveal, .pairConfirm, .pairReject, .unpair:
                guard lifecycle.canCarryPairing else {
                    fail("a pairing message before the session was accepted")
                    return
                }
                lifecycle.noteReceived(now: clock.now())
                receivedPairing(message)
            default:
                perform(lifecycle.received(message, now: clock.now()))
            }
        } catch let error as NoiseError {
            fail(error.description)
        } catch {
            fail("\(error)")
        }
    }

    private func handshakeDone() {
        do {
            let split = try handshake.split()
            sendCipher = split.send
            receiveCipher = split.receive
        } catch {
            perform(lifecycle.handshakeFailed("\(error)"))
            return
        }
        remoteStaticKey = handshake.remoteStatic
        handshakeHash = handshake.handshakeHash
        let peerID = IdentityKey.fingerprint(of: handshake.remoteStatic ?? [])
        self.remotePeerID = peerID
        let actions = lifecycle.handshakeCompleted(remotePeerID: peerID, expectedPeerID: expectedPeerID, now: clock.now())
        mismatched = lifecycle.phase == .closed(.identityMismatch)
        if !lifecycle.isClosed { delegate?.sessionAuthenticated(self, peerID: peerID) }
        perform(actions)
    }

    private func receivedPairing(_ message: WireMessage) {
        switch message {
        case .unpair:
            delegate?.sessionUnpaired(self)
        case .pairRequest where pairing == nil || pairing?.isFinished == true:
            lifecycle.pairingRequested()
            delegate?.sessionPairingRequested(self)
        default:
            guard var machine = pairing else {
                if case .pairReject = message { return }
                transmit(.pairReject(reason: .protocolError, text: "no pairing in progress"))
                return
            }
            let actions = machine.received(message)
            pairing = machine
            performPairing(actions)
        }
    }

    private func performPairing(_ actions: [PairingAction]) {
        for action in actions {
            if case .send(let message) = action {
                transmit(message)
            } else {
                delegate?.session(self, pairing: action)
            }
        }
    }

    private func fail(_ why: String) {
        perform(lifecycle.protocolViolation(why))
    }

    private func perform(_ actions: [SessionAction]) {
        for action in actions {
            switch action {
            case .send(let message):
                transmit(message)
            case .requestDecision(let name, let context, let timeout, let forPairing):
                if autoAccept {
                    perform(lifecycle.decided(accept: true, now: clock.now()))
                } else {
                    delegate?.sessionNeedsDecision(self, name: name, context: context, timeoutSeconds: timeout, pairing: forPairing)
                }
            case .established:
                // A session opened to pair keeps the 8 KiB frame limit.
                if !lifecycle.isForPairing { frames.maxFrame = WireCodec.maxNoiseMessage }
                delegate?.sessionEstablished(self)
            case .deliver(let message):
                // Acknowledged only once a client or the inbox has it. When
                // neither can, what came before is acknowledged and the
                // session ends as busy: the sender keeps the rest.
                if let refusal = delegate?.session(self, delivered: message) {
                    acknowledge(every: 1)
                    perform(lifecycle.closeLocally(refusal, reason: .busy))
                    return
                }
                ledger.receive()
                acknowledge(every: 64)
            case .finish(let reason, let text):
                finish(reason, text)
            }
        }
    }

    private func transmit(_ message: WireMessage) {
        guard var cipher = sendCipher, channel != nil else { return }
        do {
            let ciphertext = try cipher.encrypt(ad: [], WireCodec.encode(message))
            sendCipher = cipher
            sendFrame(ciphertext)
        } catch {
            finish(.protocolError, "\(error)")
        }
    }

    private func sendFrame(_ message: [UInt8]) {
        // Bounded by the watermarks: past the high mark nothing more is read
        // from the peer, so nothing more is answered.
        outbound.appendCoalescing(WireCodec.frame(message))
        peakQueuedBytes = max(peakQueuedBytes, outbound.byteCount)
        checkWatermarks()
        scheduleFlush()
    }

    /// Frames made in one main-queue turn (handshake message 3 and the
    /// invite, a burst of fragments, pongs for a batch of pings) go out
    /// together at the end of the turn: with `TCP_NODELAY` that is one
    /// segment where Nagle would have waited for an ACK.
    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.flushScheduled = false
                self.flush()
            }
        }
    }

    /// Whether reading is held back for the local clients (see ``holdReading(_:)``).
    public private(set) var heldForClients = false

    /// Stops (or resumes) reading from the peer because the clients that
    /// receive its messages are behind: the flow is held back toward them,
    /// rather than queued or dropped.
    public func holdReading(_ hold: Bool) {
        guard hold != heldForClients else { return }
        heldForClients = hold
        updateReading()
    }

    /// Applies the watermarks to the queue's size now.
    private func checkWatermarks() {
        guard !finished else { return }
        _ = watermarks.queued(outbound.byteCount, now: clock.now())
        updateReading()
    }

    /// Reads while neither the watermarks nor the clients hold it back.
    private func updateReading() {
        guard !finished, let channel else { return }
        if heldForClients || watermarks.isPaused { channel.pauseReading() } else { channel.resumeReading() }
    }

    private func writable() {
        guard let descriptor = channel?.descriptor else { return }
        if connecting {
            if let error = TCPConnector.finishConnect(descriptor) {
                perform(lifecycle.handshakeFailed("connect to \(remoteAddress): \(String(cString: strerror(error)))"))
                return
            }
            connected()
        }
        flush()
    }

    private func flush() {
        guard let channel, !channel.isClosing, !connecting else { return }
        let descriptor = channel.descriptor
        let drained: Bool
        do {
            drained = try outbound.flush { raw in try descriptor.send(raw) }
        } catch {
            outbound.truncateToCurrentLine()
            if closeAfterFlush { teardown() } else { perform(lifecycle.transportClosed("\(error)")) }
            return
        }
        channel.armWrite(!drained)
        checkWatermarks()
        if drained && closeAfterFlush { teardown() }
    }

    private func finish(_ reason: CloseReason, _ text: String) {
        guard !finished else { return }
        finished = true
        if var machine = pairing {
            let actions = machine.sessionClosed()
            pairing = machine
            for action in actions { if case .send = action { continue } else { delegate?.session(self, pairing: action) } }
        }
        delegate?.sessionFinished(self, reason: reason, text: text)
        // Let a final close frame go out, but never wait long for it.
        closeAfterFlush = true
        if outbound.isEmpty || connecting {
            teardown()
        } else {
            flush()
            // Strong capture: the owner has already let go, and the channel
            // must be closed (never just released) within 2 s.
            DispatchQueue.main.asyncAfter(deadline: .now() + 2) { [self] in MainActor.assumeIsolated { self.teardown() } }
        }
    }

    private func teardown() {
        channel?.close()
    }
}
