package import FoundationEssentials
package import PeerProtocol

/// The pure state machine of one session, on either side. It takes events
/// (handshake done, a wire message, a client's decision, the clock) and
/// returns actions; it never touches a socket.
///
/// Timing rules: the handshake must finish within `handshakeTimeout`; an
/// invitation is declined as `timedOut` when unanswered for its timeout; once
/// connected, a `ping` goes out after `keepaliveInterval` of silence from us,
/// and `keepaliveTimeout` without anything from the peer ends the session
/// as `keepaliveLost`.
package struct SessionLifecycle: Sendable {
    /// Which side started the session.
    package enum Role: Equatable, Sendable {
        /// Dialled and invites.
        case inviter
        /// Accepted the connection and is invited.
        case invitee
    }

    /// Timing and size rules.
    package struct Limits: Sendable, Equatable {
        /// The handshake (and, for the invitee, the `invite` after it) must arrive this fast.
        package var handshakeTimeout: TimeInterval = 5
        /// Ping after this long without sending.
        package var keepaliveInterval: TimeInterval = 5
        /// Give up after this long without hearing anything.
        package var keepaliveTimeout: TimeInterval = 15
        /// The largest invitation timeout accepted from a peer.
        package var maxInviteTimeout: TimeInterval = 300
        /// The largest reassembled message (`--max-message`).
        package var maxMessage = 16 << 20
        /// A session accepted to pair must see the peer's `pairRequest` this fast.
        package var pairingRequestTimeout: TimeInterval = 5
        /// An accepted connection that sends nothing at all is closed this fast.
        package var silentTimeout: TimeInterval = 2

        /// Defaults.
        package init() {}
    }

    /// This side's role.
    package let role: Role
    /// Where the session is.
    package private(set) var phase: SessionPhase = .handshaking
    /// The peer id the remote proved (fingerprint of its static key).
    package private(set) var remotePeerID: String?
    private let limits: Limits
    private let inviteTimeout: TimeInterval
    /// This host's name: sent in `invite` (inviter) or `accept` (invitee).
    private let ownName: String
    /// The name the invitee sent with its `accept`, when we invited and it sent one.
    package private(set) var acceptedName: String?
    /// The features the peer announced in its handshake (what may be sent to it).
    package private(set) var remoteFeatures: Set<WireFeature> = []
    /// The invitation the peer sent (invitee side), once it came.
    package private(set) var receivedInvitation: ReceivedInvitation?
    private let context: [UInt8]
    private var forPairing: Bool
    /// The app the session was invited for ("" for the default app): an
    /// app's session carries apps alone (issue 23; protocol.md §10) until
    /// the default app joins it (``defaultJoin``).
    package private(set) var admission = ""
    /// The default app's joining: the one owner of whether the session
    /// carries default-app traffic. Joined from the start unless the
    /// session was invited for an app.
    package private(set) var defaultJoin = DefaultAppJoin(joined: true)
    private var pairingDeadline: Date?
    /// Whether any byte came from the remote (a service that is not peerd
    /// answers with bytes of its own; a closed port with none).
    package private(set) var heardAnything = false
    private let startedAt: Date
    private var deadline: Date
    private var lastReceived: Date
    private var lastSent: Date
    private var assembler: MessageAssembler
    private var pingCounter: UInt64 = 0

    /// An inviter's session: it will send `invite` with `name`, `context`, `inviteTimeout`.
    package init(inviterAt now: Date, name: String, context: [UInt8], inviteTimeout: TimeInterval, limits: Limits, pairing: Bool = false,
                app: String = "") {
        role = .inviter
        admission = app
        defaultJoin = DefaultAppJoin(joined: app.isEmpty)
        forPairing = pairing
        self.limits = limits
        self.inviteTimeout = inviteTimeout
        ownName = name
        self.context = context
        deadline = now.addingTimeInterval(limits.handshakeTimeout)
        startedAt = now
        lastReceived = now
        lastSent = now
        assembler = MessageAssembler(maxMessage: limits.maxMessage)
    }

    /// An invitee's session for a connection accepted at `now`; `name` is
    /// this host's, sent with `accept`.
    package init(inviteeAt now: Date, name: String = "", limits: Limits) {
        role = .invitee
        forPairing = false
        self.limits = limits
        inviteTimeout = 0
        ownName = name
        context = []
        deadline = now.addingTimeInterval(limits.handshakeTimeout)
        startedAt = now
        lastReceived = now
        lastSent = now
        assembler = MessageAssembler(maxMessage: limits.maxMessage)
    }

    /// Whether the session has ended.
    package var isClosed: Bool { if case .closed = phase { return true } else { return false } }

    /// The handshake finished and proved `remotePeerID`. `expectedPeerID` is
    /// the id advertised by the peer we dialled (nil for an accepted connection);
    /// `remoteFeatures` is what the peer announced (``PeerHello``).
    package mutating func handshakeCompleted(remotePeerID: String, expectedPeerID: String?, remoteFeatures: Set<WireFeature> = Set(WireFeature.allCases),
                                            now: Date) -> [SessionAction] {
        guard phase == .handshaking else { return [] }
        self.remotePeerID = remotePeerID
        self.remoteFeatures = remoteFeatures
        lastReceived = now
        if let expectedPeerID, expectedPeerID != remotePeerID {
            return finish(.identityMismatch, "the peer proved id \(remotePeerID), but \(expectedPeerID) was advertised", notify: false)
        }
        switch role {
        case .inviter:
            if !admission.isEmpty, !remoteFeatures.contains(.apps) {
                return finish(.closedLocally, "the peer's release cannot carry app traffic (no feature 'apps')", notify: true)
            }
            phase = .inviting
            deadline = now.addingTimeInterval(inviteTimeout)
            return sent(.invite(name: ownName, context: context, timeoutMilliseconds: UInt32(min(inviteTimeout, limits.maxInviteTimeout) * 1000),
                                pairing: forPairing, app: admission), now)
        case .invitee:
            phase = .awaitingInvite
            deadline = now.addingTimeInterval(limits.handshakeTimeout)
            return []
        }
    }

    /// Bytes arrived on the connection (before the handshake finishes, this
    /// is what keeps a connection from being closed as silent).
    package mutating func bytesArrived() { heardAnything = true }

    /// The peer asked to pair on a session accepted to pair: its deadline is met.
    package mutating func pairingRequested() { pairingDeadline = nil }

    /// The handshake failed (bad message, wrong key, or the transport broke).
    package mutating func handshakeFailed(_ why: String) -> [SessionAction] {
        guard !isClosed else { return [] }
        return finish(.handshakeFailed, why, notify: false)
    }

    /// A wire message arrived.
    package mutating func received(_ message: WireMessage, now: Date) -> [SessionAction] {
        guard !isClosed else { return [] }
        lastReceived = now
        switch (message, phase) {
        case (.ping(let nonce), _):
            return sent(.pong(nonce), now)
        case (.pong, _):
            return []
        case (.close(let reason, let text), _):
            // The peer's reason is kept when it is an answer to our invitation.
            let local: CloseReason = switch (reason, phase) {
            case (.declined, .inviting), (.timedOut, .inviting), (.timedOut, .awaitingDecision),
                 (.duplicate, _), (.tooLarge, _), (.protocolError, _), (.busy, _): reason
            default: .closedByPeer
            }
            return finish(local, text.isEmpty ? "the peer closed the session" : text, notify: false)
        case (.invite(_, _, _, true, let app), .awaitingInvite) where !app.isEmpty:
            return finish(.protocolError, "an invitation both to pair and for app '\(app)'", notify: true)
        case (.invite(_, _, _, _, let app), .awaitingInvite) where !app.isEmpty && (try? AppName(app)) == nil:
            // The wire takes 1 to 63 bytes; the name rule (§1) 1 to 15 of
            // a-z, 0-9, '-'. Decided as the default app's, such an
            // invitation would admit no app at all (issue 42, point 5).
            return finish(.protocolError, "an invitation for '\(app)', which is no app name", notify: true)
        case (.invite(let name, let context, let timeout, let pairing, let app), .awaitingInvite):
            phase = .awaitingDecision
            forPairing = pairing
            admission = app
            defaultJoin = DefaultAppJoin(joined: app.isEmpty)
            let seconds = max(1, min(TimeInterval(timeout) / 1000, limits.maxInviteTimeout))
            deadline = now.addingTimeInterval(seconds)
            receivedInvitation = ReceivedInvitation(name: name, context: context, timeoutSeconds: Int(seconds.rounded(.up)), pairing: pairing, app: app)
            return [.requestDecision(name: name, context: context, timeoutSeconds: Int(seconds.rounded(.up)), pairing: pairing)]
        case (.accept(let name), .inviting):
            phase = .connected
            acceptedName = name.isEmpty ? nil : name
            return [.established]
        case (.decline(let reason, let text), .inviting):
            return finish(reason == .timedOut ? .timedOut : .declined, text, notify: false)
        case (.data, .connected) where forPairing, (.app(.data), .connected) where forPairing:
            // A session opened to pair carries the pairing alone: nothing a
            // stranger sends on it may reach an application.
            return finish(.protocolError, "application data on a session opened to pair", notify: true)
        case (.data, .connected) where !defaultJoin.isJoined:
            // A session accepted for an app admits no default-app traffic.
            return finish(.protocolError, "default-app data on a session accepted for app '\(admission)' alone", notify: true)
        case (.data(let more, let bytes), .connected):
            return assemble(more: more, bytes: bytes, app: 0)
        case (.app(.data(let number, let more, let bytes)), .connected):
            // Number 0 is never bound: the default app's data is `data`.
            guard number != 0 else { return finish(.protocolError, "appData under number 0", notify: true) }
            return assemble(more: more, bytes: bytes, app: number)
        default:
            return finish(.protocolError, "unexpected \(Self.name(of: message)) while \(phase)", notify: true)
        }
    }

    /// Any frame arrived (pairing messages are handled beside the lifecycle
    /// but still prove the peer alive).
    package mutating func noteReceived(now: Date) { lastReceived = now }

    /// A frame could not be decrypted or decoded.
    package mutating func protocolViolation(_ why: String) -> [SessionAction] {
        guard !isClosed else { return [] }
        return finish(.protocolError, why, notify: true)
    }

    /// A local client accepted (`true`) or declined the invitation.
    package mutating func decided(accept: Bool, now: Date) -> [SessionAction] {
        guard phase == .awaitingDecision else { return [] }
        if accept {
            phase = .connected
            if forPairing { pairingDeadline = now.addingTimeInterval(limits.pairingRequestTimeout) }
            // A peer that did not announce accept-name (0.1.0) reads only
            // the empty body.
            return sent(.accept(name: remoteFeatures.contains(.acceptName) ? ownName : ""), now) + [.established]
        }
        phase = .closed(.declined)
        return sent(.decline(reason: .declined, text: "declined by the user"), now) + [.finish(.declined, "declined by the user")]
    }

    /// Declines without a client (no subscriber to decide, or policy).
    package mutating func declineAutomatically(_ why: String, now: Date) -> [SessionAction] {
        guard phase == .awaitingDecision else { return [] }
        phase = .closed(.declined)
        return sent(.decline(reason: .declined, text: why), now) + [.finish(.declined, why)]
    }

    /// A local client closes the session.
    package mutating func closeLocally(_ why: String, reason: CloseReason = .closedLocally) -> [SessionAction] {
        guard !isClosed else { return [] }
        return finish(reason, why, notify: phase != .handshaking)
    }

    /// The transport ended (EOF or error) without a `close` message: the
    /// peer vanished (crashed, killed, unplugged). That is `keepaliveLost`,
    /// the same as silence; `closedByPeer` means the peer said goodbye.
    package mutating func transportClosed(_ why: String) -> [SessionAction] {
        guard !isClosed else { return [] }
        if phase == .handshaking {
            // Before the handshake nothing can be said on the wire: a peer
            // that turns a dial away at its limits just closes. Say which
            // limits those are, so the user is not sent chasing keys.
            guard role == .inviter else { return finish(.handshakeFailed, why, notify: false) }
            return finish(.handshakeFailed, "the peer closed the connection before the handshake finished (\(why)): it may be at its limit of connections still in their handshake (--max-pending) or of new connections per second (--connection-rate), or it does not speak this protocol", notify: false)
        }
        return finish(.keepaliveLost, "the connection broke without a close: \(why)", notify: false)
    }

    /// Application data is being sent now (counts as traffic for keepalive).
    package mutating func noteSent(now: Date) { lastSent = now }

    /// Whether application data may flow: connected, and not opened to pair.
    package var canSendData: Bool { phase == .connected && !forPairing }

    /// Whether pairing messages may flow: the session was accepted.
    package var canCarryPairing: Bool { phase == .connected }

    /// Whether the session was opened to pair (the invite's pairing flag,
    /// on either side). Such a session carries only pairing, ping, pong and
    /// close, and ends with the pairing.
    package var isForPairing: Bool { forPairing }

    /// Applies `event` to the default app's joining; only on a connected
    /// session that is not for pairing (elsewhere nothing happens).
    package mutating func joinDefault(_ event: (inout DefaultAppJoin) -> [DefaultAppJoin.Action]) -> [DefaultAppJoin.Action] {
        guard phase == .connected, !forPairing else { return [] }
        return event(&defaultJoin)
    }

    /// The clock: deadlines and keepalive.
    package mutating func tick(now: Date) -> [SessionAction] {
        switch phase {
        case .handshaking where role == .invitee && !heardAnything && now.timeIntervalSince(startedAt) >= limits.silentTimeout:
            return finish(.handshakeFailed, "nothing arrived within \(Int(limits.silentTimeout)) s of the connection", notify: false)
        case .handshaking where now >= deadline:
            return finish(.handshakeFailed, "the handshake did not complete within \(Int(limits.handshakeTimeout)) s", notify: false)
        case .awaitingInvite where now >= deadline:
            return finish(.protocolError, "no invitation within \(Int(limits.handshakeTimeout)) s of the handshake", notify: true)
        case .inviting where now >= deadline:
            return finish(.timedOut, "the invitation was not answered within \(Int(inviteTimeout)) s", notify: true)
        case .awaitingDecision where now >= deadline:
            phase = .closed(.timedOut)
            return sent(.decline(reason: .timedOut, text: "no decision before the timeout"), now) + [.finish(.timedOut, "no decision before the timeout")]
        case .connected:
            if let pairingDeadline, now >= pairingDeadline {
                return finish(.protocolError, "no pairing request within \(Int(limits.pairingRequestTimeout)) s of accepting a session to pair", notify: true)
            }
            if now.timeIntervalSince(lastReceived) >= limits.keepaliveTimeout {
                return finish(.keepaliveLost, "nothing heard for \(Int(limits.keepaliveTimeout)) s", notify: false)
            }
            if now.timeIntervalSince(lastSent) >= limits.keepaliveInterval {
                pingCounter += 1
                return sent(.ping(pingCounter), now)
            }
            return []
        default:
            return []
        }
    }

    /// A ping that asks the peer to acknowledge now: a receiver
    /// acknowledges what it has before it answers a ping (docs/protocol.md
    /// §5), so a sender waiting on its last messages hears in a round trip,
    /// not at the peer's next second. Nothing unless connected.
    package mutating func askForAcknowledgement(now: Date) -> [SessionAction] {
        guard case .connected = phase else { return [] }
        pingCounter += 1
        return sent(.ping(pingCounter), now)
    }

    private mutating func sent(_ message: WireMessage, _ now: Date) -> [SessionAction] {
        lastSent = now
        return [.send(message)]
    }

    /// One fragment of application data, under app number `app` (0 for `data`).
    private mutating func assemble(more: Bool, bytes: [UInt8], app: UInt16) -> [SessionAction] {
        switch assembler.add(more: more, bytes: bytes, app: app) {
        case .incomplete: return []
        case .message(let whole, app: 0): return [.deliver(whole)]
        case .message(let whole, let number): return [.deliverApp(number, whole)]
        case .tooLarge(let size):
            return finish(.tooLarge, "message of more than \(size) bytes exceeds the \(limits.maxMessage)-byte limit", notify: true)
        case .interleaved(let expected, let got):
            return finish(.protocolError, "a fragment under app number \(got) inside a message under \(expected)", notify: true)
        }
    }

    private mutating func finish(_ reason: CloseReason, _ text: String, notify: Bool) -> [SessionAction] {
        phase = .closed(reason)
        let wireReason: CloseReason = reason == .closedLocally || reason == .duplicate || reason == .timedOut || reason == .tooLarge || reason == .protocolError || reason == .busy ? reason : .closedByPeer
        return (notify ? [.send(.close(reason: wireReason, text: text))] : []) + [.finish(reason, text)]
    }

    private static func name(of message: WireMessage) -> String {
        switch message {
        case .invite: return "invite"
        case .accept: return "accept"
        case .decline: return "decline"
        case .data: return "data"
        case .ping: return "ping"
        case .pong: return "pong"
        case .close: return "close"
        case .pairRequest, .pairCommit, .pairNonce, .pairReveal, .pairConfirm, .pairReject: return "pairing message"
        case .unpair: return "unpair"
        case .ack: return "ack"
        case .bulk: return "transfer or stream message"
        case .app: return "app message"
        case .feature(let type, _): return "message of type 0x\(String(type, radix: 16))"
        case .queued: return "queued"
        }
    }
}
