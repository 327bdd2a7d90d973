/// The sending end of one stream's credit (issue 12, point 6): how many
/// bytes it may send before the receiver grants more. A stream without
/// credit is skipped by the session's scheduler; the others go on.
package struct SendCredit: Sendable, Equatable {
    /// Bytes that may be sent now.
    package private(set) var available = ReceiveWindow.initial

    /// A fresh stream's credit: one initial window.
    package init() {}

    /// Sends up to `wanted` bytes; returns how many may go.
    package mutating func take(_ wanted: Int) -> Int {
        let granted = min(max(wanted, 0), available)
        available -= granted
        return granted
    }

    /// The receiver granted `count` more bytes. Returns false for a grant
    /// that would pass the largest window (a protocol error).
    package mutating func grant(_ count: Int) -> Bool {
        guard count >= 0, available + count <= ReceiveWindow.maximum else { return false }
        available += count
        return true
    }
}
