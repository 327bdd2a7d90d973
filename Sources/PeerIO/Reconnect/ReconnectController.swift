import Dispatch
import FoundationEssentials
import PeerCore
import PeerProtocol

/// Keeps paired peers connected: dials each that has no session at its
/// backoff (``ReconnectSchedule``: 1 s doubling to 60 s, with jitter),
/// at the next tick when it appears or a local link comes back (netlink),
/// and not at all for a while after a `busy` close. It decides; the
/// daemon performs the ``PairedDial``s its tick returns.
@MainActor
package final class ReconnectController {
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
    /// Paired peers whose rows were present (not lost) at the last tick:
    /// one present now and not then has just appeared.
    private var present: Set<UUID> = []
    private let enabled: Bool
    private let surroundings: any ReconnectSurroundings
    private let logger: Logger
    private let clock: DaemonClock

    /// A controller; `enabled` is `--auto-connect`, `interfaces` the
    /// watched interface indexes (empty: all).
    package init(enabled: Bool, interfaces: Set<Int32>, surroundings: any ReconnectSurroundings, logger: Logger,
                clock: DaemonClock = .system) {
        self.clock = clock
        self.enabled = enabled
        self.surroundings = surroundings
        linkStates = LinkStateTracker(watched: interfaces)
        self.logger = logger
    }

    /// Starts watching links and addresses.
    package func start() {
        // A link coming back ends a partition sooner than any backoff would.
        do {
            netlink = try NetlinkMonitor { [weak self] changes in self?.networkChanged(changes) }
        } catch {
            logger.notice("not watching links and addresses (\(error)); paired peers are retried at their backoff only")
        }
    }

    /// Stops dialling and watching.
    package func stop() {
        stopped = true
        netlink?.stop()
    }

    /// Once a second: the dials that are due, for the daemon to perform.
    /// A paired peer that appeared (its row present now, lost or unknown
    /// at the last tick) is due at once, not at its backoff.
    package func tick(now: Date) -> [PairedDial] {
        noteAppearances(now: now)
        if let networkRetryAt, now >= networkRetryAt {
            return networkReturned()
        }
        return dialsDue(now: now)
    }

    private func noteAppearances(now: Date) {
        var shown: Set<UUID> = []
        for record in surroundings.paired {
            guard let row = surroundings.row(record.uuid), !row.lost else { continue }
            shown.insert(record.uuid)
            if enabled, !present.contains(record.uuid) { schedule.appeared(record.uuid, now: now) }
        }
        present = shown
    }

    /// The peer is connected: its backoff starts over.
    package func connected(_ peer: UUID) {
        schedule.succeeded(peer)
    }

    /// This host closed the peer's session as `busy`: not dialled for 30 s,
    /// or until a client takes messages here (``inboxHasRoom()``).
    package func refusedAsBusy(_ peer: UUID, now: Date) {
        refusedForInbox.insert(peer)
        schedule.pause(peer, until: now.addingTimeInterval(30))
    }

    /// Whether this host closed the peer's session as `busy`.
    package func wasRefusedAsBusy(_ peer: UUID) -> Bool { refusedForInbox.contains(peer) }

    /// The peer closed the session as `busy`: not dialled for 30 s (it
    /// dials us once a client takes messages there).
    package func peerWasBusy(_ peer: UUID, now: Date) {
        schedule.pause(peer, until: now.addingTimeInterval(30))
    }

    /// A client took messages: peers this host refused as busy may come again.
    package func inboxHasRoom() {
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
    private func networkReturned() -> [PairedDial] {
        networkRetryAt = nil
        guard enabled, !stopped else { return [] }
        schedule.networkReturned()
        var abandoned = 0
        for session in surroundings.stalledDials {
            session.close("the network changed; dialling again", reason: .closedLocally)
            abandoned += 1
        }
        let waiting = surroundings.paired.filter { !surroundings.hasSession($0.uuid) }.count
        logger.info("a link or address came up: \(waiting) paired peer\(waiting == 1 ? "" : "s") to retry now\(abandoned > 0 ? " (abandoned \(abandoned) stalled dial\(abandoned == 1 ? "" : "s"))" : "")")
        return dialsDue(now: clock.now())
    }

    /// Opens sessions to paired peers that have none, each at its backoff.
    /// Where mDNS shows no address, the addresses of the last connection
    /// are tried.
    private func dialsDue(now: Date) -> [PairedDial] {
        guard enabled, !stopped else { return [] }
        var dials: [PairedDial] = []
        for record in surroundings.paired {
            let peer = record.uuid
            guard !surroundings.hasSession(peer), schedule.isDue(peer, now: now) else { continue }
            let shown = surroundings.row(peer).map { $0.lost ? [] : $0.endpoints } ?? []
            let endpoints = record.dialAddresses(shown: shown)
            guard !endpoints.isEmpty else { continue }
            let due = schedule.attempted(peer, now: now, random: Double.random(in: 0...1))
            logger.info("connecting to paired peer '\(record.name)'\(shown.isEmpty ? " at its last known addresses" : "") (attempt \(schedule.attempts(peer)); next in \(Int(due.timeIntervalSince(now).rounded())) s if it fails)")
            dials.append(PairedDial(peer: peer, endpoints: endpoints, peerID: record.peerId))
        }
        return dials
    }
}
