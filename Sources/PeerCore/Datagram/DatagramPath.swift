package import FoundationEssentials

/// Whether datagrams cross between this host and one connected peer, decided
/// without I/O (docs/protocol.md §11, "Probes"). The shell sends the probes
/// it asks for and tells it of each `probeReply` that authenticated; the
/// state is what `peer` shows and what a send toward a `blocked` path
/// answers (`unreachable`).
///
/// A probe crosses one way and its reply the other, so a reply proves
/// both directions. Probing runs once a second for ``probingFor`` after the
/// peer's `datagramPath`, then every ``upEvery`` while up (a path that
/// stops answering for ``lostAfter`` is `blocked`) and every
/// ``blockedEvery`` while blocked (a firewall opened later is found).
package struct DatagramPath: Sendable, Equatable {
    /// The path's state. The raw values are the control protocol's, pinned
    /// by tests.
    package enum State: String, Sendable, Equatable, CaseIterable, Codable {
        /// The peer speaks datagrams; its `datagramPath` has not come yet.
        case waiting
        /// The peer, or this host, has no datagram socket (port 0).
        case off
        /// Probes are out; none answered yet.
        case probing
        /// A probe was answered: datagrams cross both ways.
        case up
        /// No probe answered for a while: UDP does not cross.
        case blocked
    }

    /// What the shell does.
    package enum Action: Sendable, Equatable {
        /// Send a probe with this id.
        case probe(UInt64)
    }

    /// How long probing lasts before the path is `blocked`.
    package static let probingFor: TimeInterval = 5
    /// Probes while up.
    package static let upEvery: TimeInterval = 15
    /// An up path with no answer for this long is `blocked`.
    package static let lostAfter: TimeInterval = 45
    /// Probes while blocked.
    package static let blockedEvery: TimeInterval = 10

    /// The state now.
    package private(set) var state: State = .waiting
    /// The last probe's round trip, once one was answered.
    package private(set) var roundTrip: TimeInterval?
    private var lastProbeID: UInt64 = 0
    private var lastProbeAt: Date?
    private var lastReplyAt: Date?
    private var probingSince: Date?

    /// A path waiting for the peer's `datagramPath`.
    package init() {}

    /// The peer's `datagramPath` came: `usable` is false when either side
    /// has no socket (the peer's port 0, or none here). Probing starts.
    package mutating func learned(usable: Bool, now: Date) -> [Action] {
        guard usable else {
            state = .off
            return []
        }
        state = .probing
        probingSince = now
        lastReplyAt = nil
        return [probe(now)]
    }

    /// The clock: the next probe when one is due, and the end of probing.
    package mutating func tick(now: Date) -> [Action] {
        switch state {
        case .waiting, .off:
            return []
        case .probing:
            if let since = probingSince, now.timeIntervalSince(since) >= Self.probingFor {
                state = .blocked
                return [probe(now)]
            }
            return [probe(now)]
        case .up:
            if let heard = lastReplyAt, now.timeIntervalSince(heard) >= Self.lostAfter {
                state = .blocked
                return [probe(now)]
            }
            return due(Self.upEvery, now) ? [probe(now)] : []
        case .blocked:
            return due(Self.blockedEvery, now) ? [probe(now)] : []
        }
    }

    /// A `probeReply` with `id` authenticated. Returns whether the state
    /// changed. A reply to a probe never sent changes nothing.
    @discardableResult
    package mutating func replied(_ id: UInt64, now: Date) -> Bool {
        guard id >= 1, id <= lastProbeID, state != .off, state != .waiting else { return false }
        if id == lastProbeID, let sent = lastProbeAt { roundTrip = now.timeIntervalSince(sent) }
        lastReplyAt = now
        let changed = state != .up
        state = .up
        return changed
    }

    private func due(_ every: TimeInterval, _ now: Date) -> Bool {
        guard let last = lastProbeAt else { return true }
        return now.timeIntervalSince(last) >= every
    }

    private mutating func probe(_ now: Date) -> Action {
        lastProbeID += 1
        lastProbeAt = now
        return .probe(lastProbeID)
    }
}
