import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// The datagram path's control (issue 26; docs/protocol.md §11), on the
/// main actor: it opens each connected session's link in the
/// ``DatagramEngine`` (taking the session's datagram ciphers and sending
/// its `datagramPath`), tells the engine what the peer said and who may
/// receive, answers `datagram` and `datagrams`, and reads the counts for
/// `peer` and `status`. The datagrams themselves go through the engine, on
/// its own queue: the session layer's work never delays them.
///
/// It is a feature that plugs into the session (``SessionFeature``): it
/// owns message types 0x30 and 0x31 (``DatagramSessionMessage``) and the
/// control methods `datagram` and `datagrams` (`DatagramDesk+Requests.swift`).
@MainActor
package final class DatagramDesk: SessionFeature {
    private let engine: DatagramEngine
    /// Why there is no socket, when there is none.
    private let socketError: String?
    /// The sessions, by peer: the daemon's one table.
    private let sessions: SessionTable
    /// Each app's state with each peer (internal, as the next two, for
    /// `DatagramDesk+Requests.swift`).
    let appSessions: AppSessions
    /// This host's apps: which a connection holds.
    let apps: AppDesk
    /// The peers' rows: a request names its peer there.
    let directory: PeerDirectory
    private let logger: Logger
    private let clock: DaemonClock

    /// A desk over `socket` (``UDPSocket``, bound by the daemon before its
    /// TXT record is made, which carries the port); with no socket when
    /// none could be opened: every peer's path is then `off`, and the
    /// daemon runs on.
    init(socket: Result<UDPSocket, SystemError>, sessions: SessionTable, appSessions: AppSessions, apps: AppDesk, directory: PeerDirectory,
         logger: Logger, clock: DaemonClock) {
        self.sessions = sessions
        self.appSessions = appSessions
        self.apps = apps
        self.directory = directory
        self.logger = logger
        self.clock = clock
        switch socket {
        case .success(let opened):
            engine = DatagramEngine(socket: opened, logger: logger, clock: clock)
            socketError = nil
        case .failure(let error):
            engine = DatagramEngine(socket: nil, logger: logger, clock: clock)
            socketError = error.description
            logger.warning("no datagram path: \(error.description)")
        }
    }

    /// The UDP port (0: no socket).
    package var port: UInt16 { engine.socket?.port ?? 0 }

    /// Starts reading the UDP socket.
    package func start() { engine.start() }

    /// Closes the socket and every client's datagram socket.
    package func stop() { engine.stop() }

    // MARK: Sessions

    /// Peers announce `datagrams` to send 0x30 and 0x31.
    package var wireFeature: WireFeature? { .datagrams }
    /// `datagramPath` and `datagramFrame`.
    package var messageTypes: Set<UInt8> { DatagramSessionMessage.types }

    /// A `datagramPath` or `datagramFrame` (taken from any connected
    /// session, even one whose row is still being found: the path is the
    /// session's, and ends with it).
    package func received(type: UInt8, body: [UInt8], on session: any FeatureSession) -> String? {
        let message: DatagramSessionMessage
        do { message = try DatagramSessionMessage.decode(type: type, body: body) } catch { return error.description }
        if let violation = message.violation(canSendData: session.isConnected) { return violation }
        switch message {
        case .path(let index, let port): self.session(session, datagramPath: index, port: port)
        case .frame(let app, let data): self.session(session, datagramFrame: data, app: app)
        }
        return nil
    }

    /// A session is connected: its link opens, and the peer hears where
    /// datagrams for it go. Nothing for a peer without `datagrams`.
    package func sessionUp(_ session: any FeatureSession) {
        guard link(for: session) != nil else { return }
        refreshAudience(of: session)
    }

    /// Tells the engine who may receive on `session`'s link now.
    private func refreshAudience(of session: any FeatureSession) {
        let (number, audience) = (session.number, audience(of: session))
        engine.sync { engine in
            if let link = engine.link(ofSession: number), link.audience != audience { engine.setAudience(audience, of: link) }
        }
    }

    /// The peer's `datagramPath`: where its datagrams go, and probing starts.
    private func session(_ session: any FeatureSession, datagramPath index: UInt32, port: UInt16) {
        guard link(for: session) != nil else { return }
        let address = port == 0 ? nil : engine.socket.flatMap { session.datagramAddress(port: port, mapped: $0.dualStack) }
        let audience = self.audience(of: session)
        let (now, number) = (clock.now(), session.number)
        engine.sync { engine in
            guard let link = engine.link(ofSession: number) else { return }
            engine.setAudience(audience, of: link)
            engine.learned(link, index: index, port: port, address: address, now: now)
        }
    }

    /// A datagram the peer carried in the session: its clients get it, as
    /// if it had come over UDP (the link's counts and audience).
    private func session(_ session: any FeatureSession, datagramFrame data: [UInt8], app text: String) {
        let number = session.number
        let app = (try? AppName(text, allowDefault: true)) ?? nil
        engine.sync { engine in
            guard let link = engine.link(ofSession: number) else { return }
            guard let app else { return link.counters.drop(.malformed) }
            link.counters.received += 1
            data.withUnsafeBytes { engine.deliver($0, app: app, on: link) }
        }
    }

    /// The session ended: its link goes, and its keys with it.
    package func sessionDown(_ session: any FeatureSession, wasCurrent: Bool) {
        let number = session.number
        engine.sync { $0.removeLink(session: number) }
    }

    /// The session's link, opened on first use for a connected session
    /// whose peer speaks datagrams (its ciphers are taken once); true when
    /// it has one.
    private func link(for session: any FeatureSession) -> Bool? {
        let number = session.number
        if engine.sync({ $0.link(ofSession: number) != nil }) { return true }
        guard session.speaks(.datagrams), session.isConnected, !session.isForPairing, let ciphers = session.takeDatagramCiphers() else { return nil }
        let name = session.remotePeerID ?? "session \(number)"
        let audience = self.audience(of: session)
        let index = engine.sync { engine in
            let link = engine.addLink(session: number, name: name, ciphers: ciphers)
            engine.setAudience(audience, of: link)
            return link.localIndex
        }
        session.send(feature: DatagramSessionMessage.path(index: index, port: port).wire)
        return true
    }

    /// Who may receive datagrams on `session`'s link, as the session layer
    /// knows it now.
    private func audience(of session: any FeatureSession) -> DatagramLink.Audience {
        let peer = session.peerUUID
        return DatagramLink.Audience(peer: peer, current: peer.map { sessions[$0] === session } ?? false, carriesDefault: session.carriesDefault,
                                     apps: peer.map { appSessions.connectedApps($0) } ?? [])
    }

    /// Once a second: who may receive (the session layer's changes of the
    /// second past), then the engine's probes.
    package func tick(now: Date) {
        let audiences = sessions.sessions.filter(\.isConnected).map { ($0.number, audience(of: $0)) }
        engine.sync { engine in
            for (number, audience) in audiences {
                if let link = engine.link(ofSession: number), link.audience != audience { engine.setAudience(audience, of: link) }
            }
            engine.tick(now: now)
        }
    }

    // MARK: Status

    /// `peer`'s `datagrams`: nil without a connected session.
    package func info(for peer: UUID) -> DatagramInfo? {
        guard let session = sessions[peer], session.isConnected else { return nil }
        guard session.speaks(.datagrams) else { return DatagramInfo(path: "unsupported") }
        let number = session.number
        var info = engine.sync { $0.link(ofSession: number)?.info } ?? DatagramInfo(path: DatagramPath.State.waiting.rawValue)
        if engine.socket == nil { info.path = DatagramPath.State.off.rawValue }
        return info
    }

    /// `peer`'s `datagrams`.
    package func describe(_ result: inout PeerResult) { result.datagrams = info(for: result.peer.id) }

    /// `status`'s `datagrams`.
    package func describe(_ status: inout DaemonStatus) {
        var datagrams = engine.sync { $0.status() }
        datagrams.error = socketError
        status.datagrams = datagrams
    }

    // MARK: Sending

    /// Sends `data` of `app` to `peer` now, or says why it cannot go. The
    /// caller checked that the client holds the app, and the size
    /// (``DatagramBody/maxData(for:)``). With `fallback`, a datagram that
    /// cannot go over UDP (the path not up) goes in the session instead,
    /// dropped rather than queued behind much (``sendFrame(app:data:on:)``).
    package func send(to peer: PeerSnapshot, app: AppName, _ data: UnsafeRawBufferPointer, fallback: Bool = false) -> Result<DatagramSendResult, ControlError> {
        guard let session = sessions[peer.id], session.isConnected else {
            return .failure(ControlError(.notConnected, "'\(peer.name)' is not connected; invite it first"))
        }
        // An app's datagrams need the app connected with the peer, as its
        // messages do; the default app's, a session that carries it.
        if app.isDefault, !session.carriesDefault { return .failure(.appOnly(peer.name, app: session.admission)) }
        if !app.isDefault, appSessions.state(peer.id, app) != .connected {
            return .failure(ControlError(.notConnected, "app '\(app.text)' is not connected with '\(peer.name)'; invite it first (peerctl --app \(app.text) invite \(peer.name))"))
        }
        guard session.speaks(.datagrams) else {
            return .failure(.unsupported(.datagrams, peer: peer.name, release: session.remoteHello?.release ?? PeerHello.silentRelease))
        }
        let number = session.number
        let state: DatagramPath.State? = link(for: session) == nil ? nil : engine.sync { $0.link(ofSession: number)?.path.state }
        if fallback, engine.socket == nil || state != .up {
            let sent = sendFrame(app: app, data: Array(data), on: session)
            engine.sync { engine in
                guard let link = engine.link(ofSession: number) else { return }
                if sent { link.counters.sent += 1 } else { link.counters.drop(.wouldBlock) }
            }
            return .success(DatagramSendResult(sent: sent, dropped: sent ? nil : DatagramDrop.wouldBlock.rawValue, bytes: data.count, via: "session"))
        }
        guard engine.socket != nil else {
            return .failure(ControlError(.unreachable, "this host has no datagram socket (\(socketError ?? "not opened")); see peerctl status, or send with fallback to carry it in the session"))
        }
        guard state != nil else {
            return .failure(ControlError(.notConnected, "the session with '\(peer.name)' carries no datagrams"))
        }
        // Valid for the call, which waits for the engine's turn.
        nonisolated(unsafe) let data = data
        let outcome: Result<DatagramDrop?, ControlError> = engine.sync { engine in
            guard let link = engine.link(ofSession: number) else {
                return .failure(ControlError(.notConnected, "the session with '\(peer.name)' carries no datagrams"))
            }
            switch link.path.state {
            case .off:
                return .failure(ControlError(.unreachable, "'\(peer.name)' has no datagram socket (its log says why); send with fallback to carry it in the session"))
            case .blocked:
                return .failure(ControlError(.unreachable, "datagrams do not cross between this host and '\(peer.name)': no probe was answered (is UDP port \(link.remotePort ?? 0) blocked?); see peerctl doctor \(peer.name), or send with fallback to carry it in the session"))
            case .waiting:
                link.counters.drop(.noPath)
                return .success(.noPath)
            case .probing, .up:
                return .success(engine.sendData(data, app: app, on: link))
            }
        }
        return outcome.map { dropped in DatagramSendResult(sent: dropped == nil, dropped: dropped?.rawValue, bytes: data.count, via: "udp") }
    }

    /// The most bytes waiting to be written for a datagram carried in the
    /// session to go: beyond, it is dropped rather than queued behind them.
    package static let frameRoom = 64 * 1024

    /// Carries a datagram in the session (`datagramFrame`), when the peer
    /// speaks datagrams and at most ``frameRoom`` bytes wait to be
    /// written; false when it was dropped (it waits behind what is queued
    /// at most, never behind more).
    private func sendFrame(app: AppName, data: [UInt8], on session: any FeatureSession) -> Bool {
        guard session.speaks(.datagrams), session.isConnected, session.queuedBytes <= Self.frameRoom else { return false }
        session.send(feature: DatagramSessionMessage.frame(app: app.text, data: data).wire)
        return true
    }

    // MARK: Clients

    /// `datagrams`: `descriptor` (a `SOCK_SEQPACKET` socket) carries `app`'s
    /// datagrams both ways until it closes; `answer` is called then.
    package func open(_ descriptor: FileDescriptor, app: AppName, answer: @escaping @MainActor (ControlReply) -> Void) {
        guard DatagramReceiver.isSeqPacket(descriptor) else {
            descriptor.close()
            return answer(.error(ControlError(.invalidParams, "'datagrams' needs a SOCK_SEQPACKET socket: one record is one datagram")))
        }
        if let refusal = engine.sync({ $0.open(descriptor, app: app, answer: answer) }) { return answer(.error(refusal)) }
        logger.info("datagram socket for \(app) opened")
    }
}
