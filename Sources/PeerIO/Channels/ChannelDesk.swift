import CMalloc
import FoundationEssentials
import PeerCore
import PeerProtocol

/// The message channels (docs/control-protocol.md, "Message channels"):
/// at most one per peer and app, ``maxChannels`` in all. The session layer hands
/// it each message that arrives (a channel for the sender takes it ahead
/// of the inbox), the peer's acknowledgements, and the session's room.
///
/// It is a feature that plugs into the session (``SessionFeature``): no
/// message types of its own (a channel's messages are the app's), the
/// control method `channel` (`ChannelDesk+Requests.swift`), and the hooks
/// above.
@MainActor
package final class ChannelDesk: SessionFeature {
    /// Channels open at once, over every peer.
    package static let maxChannels = 64

    /// The default app's channels, by peer: the hot path of every message
    /// and acknowledgement looks up a peer alone, as before apps.
    private(set) var defaults: [UUID: MessageChannel] = [:]
    /// The apps' channels.
    private var appChannels: [ChannelKey: MessageChannel] = [:]

    /// The channel of `key`, if open.
    private subscript(key: ChannelKey) -> MessageChannel? {
        get { key.app.isDefault ? defaults[key.peer] : appChannels[key] }
        set {
            if key.app.isDefault { defaults[key.peer] = newValue } else { appChannels[key] = newValue }
        }
    }
    private let maxMessage: Int
    private let logger: Logger
    /// The sessions, by peer: the daemon's one table, given at init.
    private let sessions: SessionTable
    /// The daemon's clock (the time of a `channelOpened` event).
    private let clock: DaemonClock
    /// The daemon's one path for events (a `channelOpened` goes through it).
    private let events: EventOutlet
    /// This host's apps: which a connection holds (internal, as the next
    /// two, for `ChannelDesk+Requests.swift`).
    let apps: AppDesk
    /// Each app's state with each peer.
    let appSessions: AppSessions
    /// The peers' rows: a request names its peer there.
    let directory: PeerDirectory

    /// A desk for messages of at most `maxMessage` bytes over the sessions
    /// of `sessions`.
    init(maxMessage: Int, sessions: SessionTable, apps: AppDesk, appSessions: AppSessions, directory: PeerDirectory, clock: DaemonClock,
         events: EventOutlet, logger: Logger) {
        self.apps = apps
        self.appSessions = appSessions
        self.directory = directory
        self.maxMessage = maxMessage
        self.sessions = sessions
        self.clock = clock
        self.events = events
        self.logger = logger
    }

    /// The session counting for `peer`.
    func session(_ peer: UUID) -> PeerSession? { sessions[peer] }

    /// A channel is over: the memory its messages churned through goes back.
    private func ended() { malloc_trim(0) }

    /// Channels open now.
    package var count: Int { defaults.count + appChannels.count }

    /// Opens a channel to `peer` on `descriptor` for `client`; `answer` is
    /// called once it is over (or at once, with an error).
    package func open(to peer: PeerSnapshot, app: AppName, options: ChannelOptions = ChannelOptions(), descriptor: FileDescriptor,
                     client: ControlConnection, answer: @escaping @MainActor (ControlReply) -> Void) {
        guard let session = session(peer.id), session.isConnected else {
            descriptor.close()
            return answer(.error(ControlError(.notConnected, "'\(peer.name)' is not connected; invite it first")))
        }
        if app.isDefault, !session.carriesDefault {
            descriptor.close()
            return answer(.error(.appOnly(peer.name, app: session.admission)))
        }
        if case .unsupported(let release) = session.appRefusal(app) {
            descriptor.close()
            return answer(.error(.unsupported(.apps, peer: peer.name, release: release)))
        }
        let key = ChannelKey(peer: peer.id, app: app)
        guard self[key] == nil else {
            descriptor.close()
            return answer(.error(ControlError(.busy, "a channel with '\(peer.name)' for \(app) is already open here; one per peer and app")))
        }
        guard count < Self.maxChannels else {
            descriptor.close()
            return answer(.error(ControlError(.busy, "\(Self.maxChannels) channels are open; try again later")))
        }
        let channel = MessageChannel(descriptor: descriptor, peer: peer.id, app: app, receiving: options.receive, client: client,
                                     maxMessage: maxMessage, answer: answer,
                                     session: { [weak self] in self?.session(peer.id) },
                                     onFinished: { [weak self] ended in
            guard let self, self[key] === ended else { return }
            self[key] = nil
            self.logger.info("channel with '\(peer.name)': over (\(ended.sent) sent, \(ended.received) received)")
            self.ended()
        })
        self[key] = channel
        logger.info("channel with '\(peer.name)': opened\(options.receive ? "" : " (sending alone)")")
        // The client learns the moment from which the channel is the
        // peer's way out (and in): before the request's own answer.
        if options.announce { events.announce(ControlEvent(seq: 0, type: .channelOpened, time: clock.now(), peer: peer), on: client) }
        channel.pump()
    }

    /// A message from `session`'s peer: true when a channel took it (it is
    /// then the client's, and may be acknowledged). The session holds its
    /// reading while the channel's client is behind.
    package func deliver(_ message: [UInt8], app: AppName, from session: any FeatureSession) -> Bool {
        guard let peer = session.peerUUID, let channel = self[ChannelKey(peer: peer, app: app)], channel.receiving, !channel.finished else {
            return false
        }
        if channel.deliver(message) { session.holdReading(true, for: .channel) }
        return true
    }

    /// The peer acknowledged the session's first `count` messages.
    package func acknowledged(_ count: UInt64, on session: any FeatureSession) {
        guard let peer = session.peerUUID else { return }
        forEachChannel(of: peer) { $0.acknowledged(upTo: count) }
    }

    /// The session has room again: its channel sends what waits.
    package func room(on session: any FeatureSession) {
        guard let peer = session.peerUUID else { return }
        forEachChannel(of: peer) { $0.pump() }
    }

    /// The peer's current session ended: its channels are reset.
    package func sessionDown(_ session: any FeatureSession, wasCurrent: Bool) {
        guard wasCurrent, let peer = session.peerUUID else { return }
        forEachChannel(of: peer) { $0.reset("the session with the peer ended") }
    }

    /// The peer refused `app`'s messages (`appBusy`): its channel is reset
    /// with the peer's words, since what it sent since was not delivered.
    package func appBusy(_ app: AppName, on session: any FeatureSession, text: String) {
        guard let peer = session.peerUUID else { return }
        self[ChannelKey(peer: peer, app: app)]?.reset("the peer refused the app's messages: \(text)")
    }

    /// Runs `body` on each channel joined to `peer`, in every app (no
    /// array made: this runs for every acknowledgement and every room).
    private func forEachChannel(of peer: UUID, _ body: (MessageChannel) -> Void) {
        if let channel = defaults[peer] { body(channel) }
        for (key, channel) in appChannels where key.peer == peer { body(channel) }
    }

    /// Every channel open.
    private var all: [MessageChannel] { Array(defaults.values) + Array(appChannels.values) }

    /// Clock tick: channels whose client went away are reset.
    package func tick(now: Date) {
        for channel in all where channel.client.hasHungUp {
            channel.reset("the local program went away")
        }
    }

    /// Ends every channel (shutdown).
    package func stop() {
        for channel in all { channel.reset("peerd is stopping") }
    }
}
