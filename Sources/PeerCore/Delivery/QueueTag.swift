/// A queued message's place in its sender's durable queue (feature
/// `once`, docs/protocol.md §5, "Exactly once"): the queue file's
/// `epoch`, a random number chosen when the file is made, and the
/// message's `seq` in it, 1, 2, … in the order it was queued.
///
/// The receiver remembers, per sender and app, the last tag it stored,
/// and drops a message whose tag is not past it: a message sent again
/// because its acknowledgement was lost is kept once.
package struct QueueTag: Hashable, Sendable, CustomStringConvertible {
    /// The queue file's random number (never 0).
    package var epoch: UInt64
    /// The message's number in that file (from 1).
    package var seq: UInt64

    /// A tag.
    package init(epoch: UInt64, seq: UInt64) {
        self.epoch = epoch
        self.seq = seq
    }

    /// Whether a receiver that last stored `self` already has `other`:
    /// the same queue, and not past it.
    package func covers(_ other: QueueTag) -> Bool {
        epoch == other.epoch && other.seq <= seq
    }

    /// "epoch:seq", in hex and decimal, for logs.
    package var description: String { "\(String(epoch, radix: 16)):\(seq)" }
}
