import FoundationEssentials
import PeerCore

/// Backpressure toward slow subscribers: while one has more than half of
/// `--subscriber-queue` unread, sessions that deliver messages stop reading
/// from their peers; they go on when every subscriber is below an eighth.
/// A subscriber still behind 5 s into a hold is dropped, so one stuck
/// client cannot stall every session for long.
@MainActor
package final class SubscriberFlowHold {
    private let control: ControlServer
    private let queueBytes: Int
    /// Since when sessions are held back.
    private var heldSince: Date?
    /// The sessions there are.
    private let table: SessionTable
    private var sessions: [PeerSession] { table.sessions }

    /// A hold over the sessions in `table` for subscribers of `control`
    /// with queues of `queueBytes`.
    package init(control: ControlServer, table: SessionTable, queueBytes: Int) {
        self.control = control
        self.table = table
        self.queueBytes = queueBytes
    }

    /// Past this many bytes queued for a subscriber, the flow is held.
    private var mark: Int { queueBytes / 2 }

    /// `session` just delivered a message: it stops reading if a subscriber is behind.
    package func delivered(by session: PeerSession, now: Date) {
        guard control.subscriberBacklog > mark else { return }
        session.holdReading(true, for: .subscribers)
        if heldSince == nil { heldSince = now }
    }

    /// A subscriber's queue drained: held sessions read again once all are caught up.
    package func drained() {
        guard heldSince != nil, control.subscriberBacklog <= queueBytes / 8 else { return }
        release()
    }

    /// Once a second: a subscriber that has not caught up 5 s into the hold is dropped.
    package func tick(now: Date) {
        guard let since = heldSince, now.timeIntervalSince(since) >= 5 else { return }
        control.dropSubscribers(behindBy: mark, now: now)
        release()
    }

    private func release() {
        heldSince = nil
        for session in sessions where session.readHolds.contains(.subscribers) { session.holdReading(false, for: .subscribers) }
    }
}
