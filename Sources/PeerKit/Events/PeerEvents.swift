import PeerProtocol

/// The daemon's events as an `AsyncSequence`, on a connection of their own
/// (``PeerClient/events(app:since:)``).
///
/// Reads are pulled: nothing is read from the socket until the consumer
/// asks for the next event, so a consumer that stops reading leaves the
/// events in the kernel's socket buffer and then in the daemon, whose
/// backpressure (docs/control-protocol.md, "subscribe") applies; the
/// library holds at most one read's lines. When the daemon restarts or the
/// connection breaks, the sequence connects again, subscribes with `since`
/// the last event it gave, and reports what it could not get as a
/// ``PeerEvent/gap(_:)``.
///
///     for try await event in await client.events() {
///         if case .event(let e) = event, e.type == .peerFound { print(e.peer?.name ?? "") }
///     }
public struct PeerEvents: AsyncSequence, Sendable {
    /// Each event, or a gap.
    public typealias Element = PeerEvent
    /// Only PeerKit's errors.
    public typealias Failure = PeerError

    /// The daemon's socket.
    let path: String
    /// The app whose events these are; nil for the default app.
    let app: String?
    /// Replay from after this event, when given.
    let since: UInt64?
    /// Whether it takes messages (``PeerMessages``).
    let take: Bool
    /// How long a broken connection is retried before the sequence fails.
    let reconnectFor: Duration
    /// A connected lane for the first subscription (tests), else nil.
    let adopted: ClientLane?

    /// The iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: self, lane: adopted, resume: EventResume(last: since, run: nil))
    }

    /// Pulls one event at a time.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let source: PeerEvents
        var lane: ClientLane?
        var resume: EventResume
        var subscribed = false
        var pendingGap: EventGap?

        /// The next event or gap; nil never (the sequence ends only by throwing).
        public mutating func next() async throws(PeerError) -> PeerEvent? {
            var brokenSince: ContinuousClock.Instant?
            while true {
                if let gap = pendingGap {
                    pendingGap = nil
                    return .gap(gap)
                }
                do {
                    if !subscribed { try await subscribe() }
                    if pendingGap != nil { continue }
                    guard let lane else { continue }
                    let event = try await lane.run { client throws(ControlClientError) in try client.nextEvent().event }
                    if event.type == .error, event.error?.code == .shuttingDown {
                        // The daemon is stopping: come back with it.
                        drop()
                        continue
                    }
                    resume.saw(event.seq)
                    return .event(event)
                } catch {
                    switch error {
                    case .transport, .unreachable, .refused, .timedOut:
                        // Broken or not there (yet): retry for a while.
                        let started = brokenSince ?? .now
                        brokenSince = started
                        guard ContinuousClock.now - started < source.reconnectFor else { throw error }
                        drop()
                        try? await Task.sleep(for: .milliseconds(200))
                    case .daemon, .unsupported:
                        throw error
                    }
                }
            }
        }

        /// Subscribes now, before anything is read (so what a request
        /// made next causes is not missed).
        mutating func prepare() async throws(PeerError) {
            if !subscribed { try await subscribe() }
        }

        private mutating func drop() {
            lane = nil
            subscribed = false
        }

        private mutating func subscribe() async throws(PeerError) {
            let lane = self.lane ?? ClientLane(path: source.path, label: "events")
            self.lane = lane
            if let app = source.app {
                _ = try await lane.call(.register, ControlParams.app(app))
            }
            var params = ControlParams(since: resume.last, take: source.take ? true : nil)
            params.app = source.app
            let result = try await lane.call(.subscribe, params)
            subscribed = true
            switch source.take ? .readOn : resume.verdict(result) {
            case .readOn:
                resume.subscribed(result)
            case .gapThenReadOn(let gap):
                resume.subscribed(result)
                pendingGap = gap
            case .gapThenResubscribe(let gap):
                // The new run's held events are all new: a fresh connection, from 0.
                self.lane = nil
                subscribed = false
                resume.startedOver()
                resume.run = result.run
                pendingGap = gap
            }
        }
    }
}

extension ControlParams {
    /// `{"app": NAME}`.
    static func app(_ name: String) -> ControlParams {
        var params = ControlParams()
        params.app = name
        return params
    }
}
