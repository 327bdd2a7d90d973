import FoundationEssentials
import PeerCore
import PeerProtocol

/// The daemon's one path for events (issue 21, point 8; issue 43, point 3:
/// every event to a client passes here): it numbers each
/// in the ``EventJournal`` it owns and sends it to the subscribed clients
/// through the ``ControlServer``, the only writer to clients. Made early in
/// the daemon's init, so every component that emits can be given it there.
@MainActor
final class EventOutlet {
    private var journal: EventJournal
    private let control: ControlServer
    /// This run's id (``SubscribeResult/run``): numbers start over in each run.
    let run = UUID().uuidString.lowercased()

    /// An outlet keeping `history` events for replay.
    init(history: Int, control: ControlServer) {
        journal = EventJournal(capacity: history)
        self.control = control
    }

    /// Numbers `event`, keeps it for replay unless it is live-only, and
    /// sends it to the subscribers.
    func emit(_ event: ControlEvent) {
        control.broadcast(journal.record(event, replayable: !event.type.isLiveOnly))
    }

    /// Numbers `event` without keeping it and sends it to the subscribers
    /// `audience` picks: an app's events go to its own clients alone, so
    /// they are not kept for a replay any subscriber may ask for.
    func emit(_ event: ControlEvent, to audience: (ControlConnection) -> Bool) {
        control.broadcast(journal.record(event, replayable: false), to: audience)
    }

    /// Numbers a message `event` once, without keeping it (the inbox
    /// keeps its data), and sends it to each client taking it: per client,
    /// whether it took it (one too far behind is dropped, as a subscriber).
    func deliver(_ event: ControlEvent, to connections: [ControlConnection]) -> [Bool] {
        let numbered = journal.record(event, replayable: false)
        return connections.map { control.send(numbered, to: $0) }
    }

    /// Sends `event` on `connection` alone, unnumbered (seq 0) and not
    /// kept: an event of one request, not of a subscription (a channel's
    /// `channelOpened`). A client too far behind to take it just misses it.
    func announce(_ event: ControlEvent, on connection: ControlConnection) {
        if let line = try? JSONLines.encode(EventLine(event)) { _ = connection.send(line) }
    }

    /// The last number given.
    var lastSeq: UInt64 { journal.lastSeq }

    /// The kept events after `seq`, and whether older ones were dropped.
    func events(after seq: UInt64) -> (events: [ControlEvent], truncated: Bool) { journal.events(after: seq) }
}
