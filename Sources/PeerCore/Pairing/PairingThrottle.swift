package import FoundationEssentials

/// Limits guessing: after `maxFailures` wrong codes from one peer within
/// `window`, that peer's pairing requests are refused for `lockout`.
package struct PairingThrottle: Sendable {
    /// Wrong codes allowed in a window.
    package let maxFailures: Int
    /// The window failures are counted in.
    package let window: TimeInterval
    /// How long a peer is refused after too many failures.
    package let lockout: TimeInterval
    private var failures: [String: [Date]] = [:]
    private var lockedUntil: [String: Date] = [:]

    /// The policy by default: 3 failures in 10 minutes lock out for 10 minutes.
    package init(maxFailures: Int = 3, window: TimeInterval = 600, lockout: TimeInterval = 600) {
        self.maxFailures = maxFailures
        self.window = window
        self.lockout = lockout
    }

    /// Whether `peerID` may ask to pair now; if not, until when it is refused.
    package func refusedUntil(_ peerID: String, now: Date) -> Date? {
        guard let until = lockedUntil[peerID], until > now else { return nil }
        return until
    }

    /// Records a failed attempt; returns the lockout end if this one locks the peer out.
    package mutating func recordFailure(_ peerID: String, now: Date) -> Date? {
        var recent = (failures[peerID] ?? []).filter { now.timeIntervalSince($0) < window }
        recent.append(now)
        failures[peerID] = recent
        guard recent.count >= maxFailures else { return nil }
        let until = now.addingTimeInterval(lockout)
        lockedUntil[peerID] = until
        failures[peerID] = []
        return until
    }
}
