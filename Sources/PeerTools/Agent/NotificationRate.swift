import FoundationEssentials

/// How many notifications a peer may raise (issue 45: a flood from one
/// peer must not bury the desktop): a bucket of ``burst`` per peer that
/// refills one every ``refill`` seconds, and one of ``hostBurst`` for all
/// peers together. What does not fit is counted, and shown as one notice
/// per peer that updates in place.
package struct NotificationRate: Sendable {
    /// A peer's burst.
    package static let burst = 5.0
    /// The burst of every peer together.
    package static let hostBurst = 20.0
    /// Seconds for one notification to come back to a bucket.
    package static let refill = 6.0
    /// Peers tracked at most (the oldest buckets, long full again, go first).
    package static let maxPeers = 256

    private var peers: [String: (tokens: Double, at: Date)] = [:]
    private var host = (tokens: hostBurst, at: Date.distantPast)

    /// A rate with full buckets.
    package init() {}

    /// Whether `peer` may raise a notification at `now`; takes one if so.
    package mutating func allow(_ peer: String, now: Date) -> Bool {
        var own = peers[peer] ?? (Self.burst, now)
        own.tokens = min(Self.burst, own.tokens + max(0, now.timeIntervalSince(own.at)) / Self.refill)
        own.at = now
        host.tokens = min(Self.hostBurst, host.tokens + max(0, now.timeIntervalSince(host.at)) / Self.refill)
        host.at = now
        defer {
            if peers[peer] == nil, peers.count >= Self.maxPeers, let oldest = peers.min(by: { $0.value.at < $1.value.at })?.key {
                peers[oldest] = nil
            }
            peers[peer] = own
        }
        guard own.tokens >= 1, host.tokens >= 1 else { return false }
        own.tokens -= 1
        host.tokens -= 1
        return true
    }
}
