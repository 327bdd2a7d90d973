package import FoundationEssentials

/// How one session's bulk lane comes to be, or why it does not (issue 44;
/// docs/protocol.md §12): a pure decision, after SWIM's instances, that
/// takes what happened and returns what the shell (``LaneDesk``) does.
/// It ends when the session's bulk path is settled, on the lane or on the
/// session's stream; until then the session sends no bulk bytes, so every
/// flow's bytes take one path for the session's whole life.
package struct BulkLanePlan: Sendable, Equatable {
    /// Which end of the session this is.
    package enum Side: Sendable, Equatable {
        /// The session's responder: it offers its lane port.
        case offerer
        /// The session's initiator: it dials the offered port.
        case dialer
    }

    /// Where the plan stands.
    package enum Step: Sendable, Equatable {
        /// The dialer, before the `laneOffer`.
        case waitingForOffer
        /// The offerer, after sending its `laneOffer`.
        case offered
        /// The dialer, connecting and greeting.
        case dialing
        /// Settled: the lane is up, or bulk stays on the session.
        case settled
    }

    /// What the shell does.
    package enum Action: Sendable, Equatable {
        /// Send `laneOffer` with this port (0: none here).
        case sendOffer(port: UInt16)
        /// Open the lane to the peer's address at `port`.
        case dial(port: UInt16)
        /// The lane is up: the session's bulk goes on it.
        case useLane
        /// Bulk stays on the session's stream, for this reason (any lane
        /// being opened is closed).
        case useStream(String)
        /// The peer broke the protocol: the session ends with these words.
        case violation(String)
    }

    /// How long a lane may take to come up before bulk goes on the
    /// session's stream. A lane on a link comes up in about a millisecond;
    /// a firewall that drops its packets costs this much once a session.
    package static let openWithin: TimeInterval = 5

    /// Which end this is.
    package let side: Side
    /// Where it stands.
    package private(set) var step: Step
    /// When an unsettled plan gives up.
    package let deadline: Date

    /// A plan for a session established at `now`. The offerer passes the
    /// lane port it listens on, or why it has none.
    package init(side: Side, now: Date) {
        self.side = side
        step = side == .offerer ? .offered : .waitingForOffer
        deadline = now.addingTimeInterval(Self.openWithin)
    }

    /// The offerer's first move: its port, or none and why.
    package static func offer(port: Result<UInt16, LaneUnavailable>) -> [Action] {
        switch port {
        case .success(let port): [.sendOffer(port: port)]
        case .failure(let why): [.sendOffer(port: 0), .useStream(why.text)]
        }
    }

    /// The peer's `laneOffer` arrived.
    package mutating func offerReceived(port: UInt16) -> [Action] {
        guard side == .dialer else { return [.violation("a laneOffer from the session's initiator")] }
        guard step == .waitingForOffer else { return [.violation("a second laneOffer")] }
        guard port != 0 else {
            step = .settled
            return [.useStream("the peer offered no lane (its lane port is closed)")]
        }
        step = .dialing
        return [.dial(port: port)]
    }

    /// The lane's handshake completed.
    package mutating func laneUp() -> [Action] {
        guard step == .offered || step == .dialing else { return [] }
        step = .settled
        return [.useLane]
    }

    /// The lane could not be opened (refused, broken, or its handshake failed).
    package mutating func laneFailed(_ why: String) -> [Action] {
        guard step != .settled else { return [] }
        step = .settled
        return [.useStream(why)]
    }

    /// The offerer settled on the stream at once (no port).
    package mutating func settledOnStream() { step = .settled }

    /// Clock tick: past the deadline, bulk goes on the stream.
    package mutating func tick(now: Date) -> [Action] {
        guard step != .settled, now >= deadline else { return [] }
        let what = step == .waitingForOffer ? "no laneOffer came" : "the lane did not come up"
        step = .settled
        return [.useStream("\(what) within \(Int(Self.openWithin)) s")]
    }
}

/// Why this host offers no lane: its lane port could not be opened.
package struct LaneUnavailable: Error, Sendable, Equatable {
    /// The words, for `peer` and `doctor`.
    package let text: String
    /// An unavailability with these words.
    package init(_ text: String) { self.text = text }
}
