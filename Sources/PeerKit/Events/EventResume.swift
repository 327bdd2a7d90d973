import PeerProtocol

/// What a resubscription found, decided without I/O: whether events were
/// lost, and where to read from. Tested as a table.
struct EventResume: Sendable, Equatable {
    /// The last event seen, and the run it came from; nil before any.
    var last: UInt64?
    /// The daemon run of the last subscription (``SubscribeResult/run``).
    var run: String?

    /// What to do after a `subscribe` with `since: last` answered `result`.
    enum Verdict: Sendable, Equatable {
        /// Read on: the replay follows.
        case readOn
        /// Report `gap`, then read on (the replay that follows is what is left).
        case gapThenReadOn(EventGap)
        /// Report `gap`, then subscribe again with `since: 0`: the daemon
        /// restarted, and the new run's held events are all new.
        case gapThenResubscribe(EventGap)
    }

    /// The verdict on `result`.
    func verdict(_ result: SubscribeResult) -> Verdict {
        guard let last else { return .readOn }
        let restarted = if let run, let now = result.run { run != now } else { result.seq < last }
        if restarted { return .gapThenResubscribe(EventGap(reason: .daemonRestarted, after: last)) }
        if result.truncated { return .gapThenReadOn(EventGap(reason: .truncated, after: last)) }
        return .readOn
    }

    /// Subscribed: remember the run.
    mutating func subscribed(_ result: SubscribeResult) {
        run = result.run
    }

    /// An event was delivered.
    mutating func saw(_ seq: UInt64) {
        last = seq
    }

    /// The daemon restarted and the stream starts over in its new run.
    mutating func startedOver() {
        last = 0
    }
}
