import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerProtocol

/// One TCP connection to a peer: the Noise XX handshake, then encrypted,
/// length-framed ``WireMessage``s, driven by a ``SessionLifecycle``.
///
/// The socket, its frames and its watermarks are the ``SessionTransport``'s;
/// this type holds the Noise states and dispatches what arrives
/// (``InboundRoute``). Application data beyond ``sendLimit`` queued bytes
/// is refused (the caller gets a `busy` error it can retry), so the daemon
/// never buffers without bound.
@MainActor
package final class PeerSession {
    /// A number for logs.
    package let number: Int
    /// The peer row this session belongs to, once known.
    package var peerUUID: UUID?
    /// The endpoint dialled (nil for an accepted connection).
    package let endpoint: Endpoint?
    /// The peer id advertised by the peer we dialled.
    package let expectedPeerID: String?
    /// Endpoints left to try after this one (for the owner's retry).
    package let remainingEndpoints: [Endpoint]
    /// The invitation the peer sent (invitee side), once it came.
    package var receivedInvitation: ReceivedInvitation? { lifecycle.receivedInvitation }
    /// Whether the session was opened to pair (either side): it carries
    /// only pairing, ping, pong and close, and ends with the pairing.
    package var isForPairing: Bool { lifecycle.isForPairing }
    /// The name the peer sent with its `accept` (sessions we dialled).
    package var acceptedName: String? { lifecycle.acceptedName }
    /// Whether the remote sent any byte.
    package var heardAnything: Bool { lifecycle.heardAnything }
    /// The pairing running on this session, if any.
    package internal(set) var pairing: PairingLifecycle?
    /// The Noise handshake hash, once the handshake is done.
    package private(set) var handshakeHash: [UInt8] = []
    /// Set when this side also invited (crossing invitations): accept automatically.
    package var autoAccept = false
    /// Set on a dial made only because the peer is paired (a reconnect):
    /// if that trust ends before the peer accepts, the dial ends too, or
    /// the peer would hold it as an invitation nobody asked for.
    package var dialledOnTrust = false
    /// What the remote said of itself in the handshake (its release and
    /// features), once it is done.
    package private(set) var remoteHello: PeerHello?
    /// What this side says of itself in the handshake (nil: nothing, as
    /// 0.1.0; for tests).
    package let localHello: PeerHello?
    /// The remote's proven static key, after the handshake.
    package private(set) var remoteStaticKey: [UInt8]?
    /// The id the remote proved (even when it was not the expected one).
    package private(set) var remotePeerID: String?
    /// The remote address, for logs (with the port, for a dial).
    package private(set) var remoteAddress = "?"
    /// The remote IP address alone, as rows list it (an IPv4 address seen
    /// on a dual-stack socket loses its `::ffff:`): for per-address limits
    /// and for remembering where a paired peer was.
    package let remoteHost: String
    /// The most application bytes queued for sending.
    package let sendLimit: Int
    /// The invitation context sent (inviter side), kept for a retry.
    package let inviteContext: [UInt8]
    /// The invitation timeout (inviter side), kept for a retry.
    package let inviteTimeout: TimeInterval
    /// When the session began (dial or accept).
    package let startedAt: Date
    /// The daemon's clock.
    let clock: DaemonClock
    /// Whether the remote proved the expected identity.
    package var isAuthenticated: Bool { remoteStaticKey != nil && !mismatched }
    private var mismatched = false

    /// The owner, told what happens.
    weak var delegate: (any PeerSessionDelegate)?
    /// The features that plug in: each of their messages goes to its owner.
    private let features: SessionFeatures
    /// Internal, not private, only for the `PeerSession+` files.
    var lifecycle: SessionLifecycle
    /// Internal, not private, only for `PeerSession+Frames.swift`.
    var noise: NoiseTransport
    /// The sending half: frames sealed in order, large ones on their own
    /// thread (``FrameSender``), armed when the handshake is done. Set
    /// once in init; internal for `PeerSession+Frames.swift`.
    var frames: FrameSender!
    /// Where file and stream bytes go (``BulkPath``): decided when the
    /// session is established; internal for `PeerSession+Lane.swift`.
    var bulkPath = BulkPath.stream(reason: "the session is not established")
    /// Default-app `streamOpen`s made while the lane opened: they go where
    /// their streams' bytes will, once that is settled (bounded by the
    /// streams a daemon holds); internal for `PeerSession+Lane.swift`.
    var heldOpenings: [BulkMessage] = []
    /// Set once in init; implicitly unwrapped only because it reports to
    /// `self`. Internal, not private, only for `PeerSession+Frames.swift`.
    var transport: SessionTransport!
    /// Internal for the `PeerSession+` files.
    var finished = false
    /// Internal for the `PeerSession+` files.
    var ledger = AckLedger()
    /// Whether a message is being stored (``stored(refusal:)``), and the
    /// app and number of one that is an app's.
    var storing = false
    var storingApp: (app: AppName, number: UInt16)?
    /// The peer's `queued` tag for the next application message to
    /// complete (feature `once`); internal for `PeerSession+Delivery.swift`.
    var pendingTag: QueueTag?
    /// The app numbers both ways (``AppBindings``); internal, not private,
    /// only for `PeerSession+Apps.swift`.
    var appBindings = AppBindings()
    /// The per-app flow both ways (``AppFlow``); internal for the same file.
    var appFlow = AppFlow()
    /// Whether this is a dial whose TCP connect has not completed yet.
    package var isTCPConnecting: Bool { transport.connecting && !finished }
    /// Who holds reading back for the local clients (see ``holdReading(_:for:)``).
    package var readHolds: ReadHolds { transport.readHolds }
    /// Whether the session is established and may carry data.
    package var isConnected: Bool { lifecycle.canSendData && !finished }
    /// Whether the session is accepted and may carry a pairing.
    package var canCarryPairing: Bool { lifecycle.canCarryPairing && !finished }
    /// The lifecycle phase.
    package var phase: SessionPhase { lifecycle.phase }
    /// Whether the session has ended (or is ending).
    package var isClosed: Bool { lifecycle.isClosed }
    /// Which side this is.
    package var role: SessionLifecycle.Role { lifecycle.role }
    /// Bytes waiting to be written.
    package var queuedBytes: Int { transport.queuedBytes }

    /// Dials `endpoint` and invites. Throws if the connect cannot even
    /// start. `hello` is what it says of itself in the handshake (nil:
    /// nothing, as 0.1.0; for tests).
    package init(number: Int, dialing endpoint: Endpoint, remaining: [Endpoint], expectedPeerID: String?, identity: IdentityKey,
                name: String, context: [UInt8], inviteTimeout: TimeInterval, limits: SessionLifecycle.Limits,
                sendLimit: Int, pairing: Bool = false, app: AppName = .none, delegate: any PeerSessionDelegate,
                features: SessionFeatures = .none, clock: DaemonClock = .system, hello: PeerHello? = LocalHello.ours) throws(SystemError) {
        localHello = hello
        self.clock = clock
        self.features = features
        startedAt = clock.now()
        self.number = number
        self.endpoint = endpoint
        remainingEndpoints = remaining
        self.expectedPeerID = expectedPeerID
        self.sendLimit = sendLimit
        self.delegate = delegate
        inviteContext = context
        self.inviteTimeout = inviteTimeout
        lifecycle = SessionLifecycle(inviterAt: clock.now(), name: name, context: context, inviteTimeout: inviteTimeout, limits: limits, pairing: pairing,
                                     app: app.text)
        noise = NoiseTransport(initiator: true, identity: identity, hello: hello)
        remoteAddress = endpoint.hostPort
        remoteHost = endpoint.address
        let fd = try TCPConnector.startConnect(to: endpoint)
        transport = SessionTransport(descriptor: fd, connecting: true, sendLimit: sendLimit, delegate: self, clock: clock)
        frames = FrameSender(transport: transport, highWater: Self.bulkHighWater, owner: self)
    }

    /// Takes an accepted connection; the remote invites us. `name` is this
    /// host's, sent with `accept`.
    package init(number: Int, accepted fd: FileDescriptor, identity: IdentityKey, name: String = "", limits: SessionLifecycle.Limits,
                sendLimit: Int, delegate: any PeerSessionDelegate, features: SessionFeatures = .none, clock: DaemonClock = .system,
                hello: PeerHello? = LocalHello.ours) {
        localHello = hello
        self.clock = clock
        self.features = features
        startedAt = clock.now()
        self.number = number
        endpoint = nil
        remainingEndpoints = []
        expectedPeerID = nil
        self.sendLimit = sendLimit
        self.delegate = delegate
        inviteContext = []
        inviteTimeout = 0
        lifecycle = SessionLifecycle(inviteeAt: clock.now(), name: name, limits: limits)
        noise = NoiseTransport(initiator: false, identity: identity, hello: hello)
        remoteAddress = TCPConnector.peerAddress(fd)
        remoteHost = TCPConnector.plainHost(remoteAddress)
        transport = SessionTransport(descriptor: fd, connecting: false, sendLimit: sendLimit, delegate: self, clock: clock)
        frames = FrameSender(transport: transport, highWater: Self.bulkHighWater, owner: self)
    }

    /// Clock tick: deadlines and keepalive. Returns whether the socket is
    /// closed: a finished session's owner ticks it until then, while its
    /// last frames go out.
    @discardableResult
    package func tick(now: Date) -> Bool {
        if finished {
            let laneClosed = tickLane(now: now)
            return transport.tick(now: now) && laneClosed
        }
        if transport.isStalled(now: now) {
            let what = transport.stalledOnAnswers ? "the pongs to its pings" : "what we sent"
            fail("the peer has not read \(what) for \(Int(transport.stallTimeout)) s (\(transport.queuedBytes) bytes waiting)")
            return false
        }
        perform(lifecycle.tick(now: now))
        tickJoin(now: now)
        transport.tickFrames()
        tickLane(now: now)
        acknowledge(every: 1)
        if var machine = pairing {
            let actions = machine.tick(now: now)
            pairing = machine
            performPairing(actions)
        }
        return false
    }

    /// Tells the peer we removed our trust in it.
    package func sendUnpair() { transmit(.unpair) }

    /// A client's decision on the invitation.
    package func decide(accept: Bool) { perform(lifecycle.decided(accept: accept, now: clock.now())) }

    /// Declines without asking anyone.
    package func declineAutomatically(_ why: String) { perform(lifecycle.declineAutomatically(why, now: clock.now())) }

    /// Closes the session, telling the peer why.
    package func close(_ why: String, reason: CloseReason = .closedLocally) {
        perform(lifecycle.closeLocally(why, reason: reason))
    }

    // MARK: Frames

    /// One frame from the transport (internal for `PeerSession+Transport.swift`).
    func receivedFrame(_ frame: UnsafeMutableRawBufferPointer) {
        if noise.isHandshaking {
            do {
                let step = try noise.readHandshake(Array(frame))
                if let reply = step.reply { transport.send(frame: reply) }
                if let proof = step.proof { handshakeDone(proof) }
            } catch {
                perform(lifecycle.handshakeFailed("\(error)"))
            }
            return
        }
        do {
            guard let count = try noise.open(frame) else { return }
            let plaintext = UnsafeRawBufferPointer(rebasing: frame[0..<count])
            // File and stream bytes go on from where they were decrypted.
            if let (head, start) = BulkDataHead.parse(plaintext) {
                if let violation = InboundRoute.bulkViolation(canSendData: lifecycle.canSendData) { return fail(violation) }
                if let refusal = remoteHello?.refusal(ofBytesOf: head.feature) { return fail(refusal) }
                lifecycle.noteReceived(now: clock.now())
                delegate?.session(self, data: head, bytes: UnsafeRawBufferPointer(rebasing: plaintext[start...]))
                return
            }
            let message = try WireCodec.decode(Array(plaintext))
            // What the peer did not announce it may not send (docs/protocol.md §9).
            if let refusal = remoteHello?.refusal(of: message) { return fail(refusal) }
            let presence: PairingPresence = pairing.map { $0.isFinished ? .finished : .running } ?? .none
            let route = InboundRoute.of(message, canSendData: lifecycle.canSendData, canCarryPairing: lifecycle.canCarryPairing,
                                        sent: ledger.sent, pairing: presence)
            switch route {
            case .violation(let why):
                fail(why)
                return
            case .lifecycle(let message):
                // A ping asks for everything: what arrived is acknowledged
                // before the pong, so a sender waiting on its last
                // messages need not wait for our tick (docs/protocol.md §5).
                if case .ping = message { acknowledge(every: 1) }
                perform(lifecycle.received(message, now: clock.now()))
                return
            default:
                lifecycle.noteReceived(now: clock.now())
            }
            switch route {
            case .acknowledged(let count): delegate?.session(self, acknowledged: count)
            case .unpaired: delegate?.sessionUnpaired(self)
            case .pairingRequested:
                lifecycle.pairingRequested()
                delegate?.sessionPairingRequested(self)
            case .pairingStep(let message):
                guard var machine = pairing else { return }
                let actions = machine.received(message)
                pairing = machine
                performPairing(actions)
            case .rejectStrayPairing: transmit(.pairReject(reason: .protocolError, text: "no pairing in progress"))
            case .bulk(let message):
                // An app-only session opens no default-app flow; the rest
                // of a flow goes by its id, to the desk that knows it.
                if AppMessage.opensFlow(message), let violation = appOnlyViolation { return fail(violation) }
                delegate?.session(self, bulk: message, app: .none)
            case .app(let message): received(app: message)
            case .feature(let type, let body):
                // A feature that plugged in owns it (``SessionFeatures``).
                if let violation = features.received(type: type, body: body, on: self) { return fail(violation) }
            case .queued(let tag):
                // §5: a tag names the next message; two in a row name none.
                guard pendingTag == nil else { return fail("a second queued tag before an application message") }
                pendingTag = tag
            case .ignore, .violation, .lifecycle: break
            }
        } catch let error as NoiseError {
            fail(error.description)
        } catch {
            fail("\(error)")
        }
    }

    private func handshakeDone(_ proof: NoiseTransport.Proof) {
        if let cipher = noise.takeSendCipher() { frames.arm(cipher) }
        remoteStaticKey = proof.remoteStatic
        handshakeHash = proof.handshakeHash
        remoteHello = proof.hello
        let peerID = IdentityKey.fingerprint(of: proof.remoteStatic)
        self.remotePeerID = peerID
        let actions = lifecycle.handshakeCompleted(remotePeerID: peerID, expectedPeerID: expectedPeerID, remoteFeatures: proof.hello.features,
                                                   now: clock.now())
        mismatched = lifecycle.phase == .closed(.identityMismatch)
        if !lifecycle.isClosed { delegate?.sessionAuthenticated(self, peerID: peerID) }
        perform(actions)
    }

    /// Ends the session as a protocol error (internal for `PeerSession+Apps.swift`).
    func fail(_ why: String) {
        perform(lifecycle.protocolViolation(why))
    }

    /// Performs the lifecycle's actions (internal for the `PeerSession+` files).
    func perform(_ actions: [SessionAction]) {
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
                if !lifecycle.isForPairing { transport.maxFrame = WireCodec.maxNoiseMessage }
                bulkPath = initialBulkPath(laneOwner: features.owner(ofType: LaneOffer.type) != nil)
                delegate?.sessionEstablished(self)
            case .deliver(let message):
                guard deliver(message, app: .none, number: 0) else { return }
            case .deliverApp(let number, let message):
                guard let app = appBindings.incomingApp(number) else { return fail("appData under number \(number), which the peer never opened") }
                guard deliver(message, app: app, number: number) else { return }
            case .finish(let reason, let text):
                finish(reason, text)
            }
        }
    }

    /// Stops handing what arrives to the session's logic until
    /// ``releaseDelivery()`` (see ``SessionTransport/holdDelivery()``).
    package func holdDelivery() { transport.holdDelivery() }

    /// Ends one ``holdDelivery()``.
    package func releaseDelivery() { transport.releaseDelivery() }

    /// Stops (or resumes) reading from the peer because the clients that
    /// receive its messages are behind: the flow is held back toward them,
    /// rather than queued or dropped. Each holder clears only its own hold.
    package func holdReading(_ hold: Bool, for holder: ReadHolds) {
        transport.holdReading(hold, for: holder)
    }

    /// Ends the session (internal for `PeerSession+Frames.swift`).
    func finish(_ reason: CloseReason, _ text: String) {
        guard !finished else { return }
        finished = true
        if var machine = pairing {
            let actions = machine.sessionClosed()
            pairing = machine
            for action in actions { if case .send = action { continue } else { delegate?.session(self, pairing: action) } }
        }
        delegate?.sessionFinished(self, reason: reason, text: text)
        closeLane()
        // Let a final close frame go out, but never wait long for it: the
        // owner ticks a finished session until its socket is closed.
        transport.closeAfterSending()
    }
}
