import Dispatch
import FoundationEssentials
import PeerCore

/// Keeps paired peers connected: dials each that has no session at its
/// backoff (``ReconnectSchedule``: 1 s doubling to 60 s, with jitter),
/// at once when it appears or a local link comes back (netlink), and not
/// at all for a while after a `busy` close.
@MainActor
public final class ReconnectController {
    private var schedule = ReconnectSchedule()
    private var netlink: NetlinkMonitor?
    private var linkStates: LinkStateTracker
    /// After a network gain: when to retry paired peers (the burst of
    /// notifications that comes with a link is over by then).
    private var networkRetryAt: Date?
    private var stopped = false
    /// Peers this host closed as `busy` (its inbox was full): dialled again
    /// once a client takes messages, or after 30 s.
    private var refusedForInbox: Set<UUID> = []
    private let enabled: Bool
    private let logger: Logger
    private let clock: DaemonClock
    /// Whether the peer has a session, or one is on its way (set before use).
    public var hasSession: @MainActor (UUID) -> Bool = { _ in true }
    /// Sessions still in TCP connect to paired peers (set before use).
    public var stalledDials: @MainActor () -> [PeerSession] = { [] }
    /// The paired peers (set before use).
    public var paired: @MainActor () -> [TrustRecord] = { [] }
    /// A peer's row, for its current endpoints (set before use).
    public var row: @MainActor (UUID) -> PeerSnapshot? = { _ in nil }
    /// Dials a paired peer at these endpoints (set before use).
    public var dial: @MainActor (_ peer: UUID, _ endpoints: [Endpoint], _ peerID: String) -> Void = { _, _, _ in }

    /// A controller; `enabled` is `--auto-connect`, `interfaces` the
    /// watched interface indexes (empty: all).
    public init(enabled: Bool, interfaces: Set<Int32>, logger: Logger, clock: DaemonClock = .system) {
        self.clock = clock
        self.enabled = enabled
        linkStates = LinkStateTracker(watched: interfaces)
        self.logger = logger
    }

    /// Starts watching links and addresses.
    public func start() {
        // A link coming back ends a partition sooner than any backoff would.
        do {
            netlink = try NetlinkMonitor { [weak self] changes in self?.networkChanged(changes) }
        } catch {
            logger.notice("not watching links and addresses (\(error)); paired peers are retried at their backoff only")
        }
    }

    /// Stops dialling and watching.
    public func stop() {
        stopped = true
        netlink?.stop()
    }

    /// Once a second: dials the peers that are due.
    public func tick(now: Date) {
        if let networkRetryAt, now >= networkRetryAt {
            networkReturned()
            return
        }
        dialDue(now: now)
    }

    /// A paired peer appeared (or came back): try it now, not at its backoff.
    public func appeared(_ row: PeerSnapshot, now: Date) {
        guard enabled, row.paired else { return }
        schedule.appeared(row.id, now: now)
        dialDue(now: now)
    }

    /// The peer is connected: its backoff starts over.
    public func connected(_ peer: UUID) {
        schedule.succeeded(peer)
    }

    /// This host closed the peer's session as `busy`: not dialled for 30 s,
    /// or until a client takes messages here (``inboxHasRoom()``).
    public func refusedAsBusy(_ peer: UUID, now: Date) {
        refusedForInbox.insert(peer)
        schedule.pause(peer, until: now.addingTimeInterval(30))
    }

    /// Whether this host closed the peer's session as `busy`.
    public func wasRefusedAsBusy(_ peer: UUID) -> Bool { refusedForInbox.contains(peer) }

    /// The peer closed the session as `busy`: not dialled for 30 s (it
    /// dials us once a client takes messages there).
    public func peerWasBusy(_ peer: UUID, now: Date) {
        schedule.pause(peer, until: now.addingTimeInterval(30))
    }

    /// A client took messages: peers this host refused as busy may come again.
    public func inboxHasRoom() {
        guard !refusedForInbox.isEmpty else { return }
        for peer in refusedForInbox { schedule.resume(peer) }
        refusedForInbox.removeAll()
    }

    /// The kernel reported link or address changes. When one is a gain (a
    /// link came up, an address appeared), paired peers are retried shortly
    /// after (at the next tick, at least 250 ms on), once the burst of
    /// notifications that comes with it is over.
    private func networkChanged(_ changes: [NetworkChange]) {
        guard linkStates.apply(changes), networkRetryAt == nil, !stopped else { return }
        networkRetryAt = clock.now().addingTimeInterval(0.25)
    }

    /// The network came back: forget the backoff, abandon dials to paired
    /// peers still stuck in TCP connect (their SYNs went into the void while
    /// the link was down and would only time out), and dial again now.
    private func networkReturned() {
        networkRetryAt = nil
        guard enabled, !stopped else { return }
        schedule.networkReturned()
        var abandoned = 0
        for session in stalledDials() {
            session.close("the network changed; dialling again", reason: .closedLocally)
            abandoned += 1
        }
        let waiting = paired().filter { !hasSession($0.uuid) }.count
        logger.info("a link or address came up: \(waiting) paired peer\(waiting == 1 ? "" : "s") to retry now\(abandoned > 0 ? " (abandoned \(abandoned) stalled dial\(abandoned == 1 ? "" : "s"))" : "")")
        dialDue(now: clock.now())
    }

    /// Opens sessions to paired peers that have none, each at its backoff.
    /// Where mDNS shows no address, the addresses of the last connection
    /// are tried.
    private func dialDue(now: Date) {
        guard enabled, !stopped else { return }
        for record in paired() {
            let peer = record.uuid
            guard !hasSession(peer), schedule.isDue(peer, now: now) else { continue }
            let shown = row(peer).map { $0.lost ? [] : $0.endpoints } ?? []
            let endpoints = record.dialAddresses(shown: shown)
            guard !endpoints.isEmpty else { continue }
            let due = schedule.attempted(peer, now: now, random: Double.random(in: 0...1))
            logger.info("connecting to paired peer '\(record.name)'\(shown.isEmpty ? " at its last known addresses" : "") (attempt \(schedule.attempts(peer)); next in \(Int(due.timeIntervalSince(now).rounded())) s if it fails)")
            dial(peer, endpoints, record.peerId)
        }
    }
}
