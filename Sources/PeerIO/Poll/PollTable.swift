import PeerSystem

/// The main actor's side of the ``Poller``: which channel each token
/// belongs to. Tokens count up and are never reused, so a report that
/// arrives after its channel closed (and its descriptor number went to
/// someone else) finds no channel and is dropped.
@MainActor
final class PollTable {
    /// A channel, held weakly: the table never keeps one alive.
    private struct Entry {
        weak var channel: PollChannel?
    }

    private var entries: [UInt64: Entry] = [:]
    private var nextToken: UInt64 = 1

    /// Registrations now.
    var count: Int { entries.count }

    /// A token never given before, for a channel being made.
    func newToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    /// Reports for `token` go to `channel` from now on.
    func bind(_ token: UInt64, to channel: PollChannel) {
        entries[token] = Entry(channel: channel)
    }

    /// `token`'s channel is gone.
    func remove(_ token: UInt64) {
        entries[token] = nil
    }

    /// Hands each report to its channel, if it is still there.
    func deliver(_ reports: [Epoll.Report]) {
        for report in reports {
            entries[report.token]?.channel?.reported(report.events)
        }
    }
}
