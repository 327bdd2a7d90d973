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

    /// Whether a batch of reports is being handed out now.
    private var delivering = false
    /// Channels whose writing waits for the end of this batch, in order.
    private var writeAtEnd: [PollChannel] = []

    /// Hands each report to its channel, if it is still there; then lets
    /// the channels that asked write, once each (``PollChannel/writeAtBatchEnd()``).
    func deliver(_ reports: [Epoll.Report]) {
        delivering = true
        for report in reports {
            entries[report.token]?.channel?.reported(report.events)
        }
        delivering = false
        let due = writeAtEnd
        writeAtEnd.removeAll(keepingCapacity: true)
        for channel in due { channel.batchEnded() }
    }

    /// Queues `channel` to write at the end of the batch being handed out;
    /// false when no batch is (the caller writes now).
    func writeAtEnd(_ channel: PollChannel) -> Bool {
        guard delivering else { return false }
        writeAtEnd.append(channel)
        return true
    }
}
