import FoundationEssentials
import PeerCore

/// The daemon's one path for events (issue 21, point 8): it numbers each
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

    /// Numbers `event` without keeping it (a message event, whose data
    /// the inbox keeps).
    func number(_ event: ControlEvent) -> ControlEvent { journal.record(event, replayable: false) }

    /// The last number given.
    var lastSeq: UInt64 { journal.lastSeq }

    /// The kept events after `seq`, and whether older ones were dropped.
    func events(after seq: UInt64) -> (events: [ControlEvent], truncated: Bool) { journal.events(after: seq) }
}
