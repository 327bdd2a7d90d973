package import FoundationEssentials

/// When to try a paired peer again: at once when it appears, then after
/// 1 s, 2 s, 4 s … up to 60 s between failed attempts, each delay spread by
/// ±20 % jitter so two peers (or a fleet) do not retry in lockstep.
package struct ReconnectSchedule: Sendable {
    /// The first delay after a failure.
    package let initialDelay: TimeInterval
    /// The longest delay.
    package let maxDelay: TimeInterval
    /// The spread, as a fraction of the delay.
    package let jitter: Double
    private var entries: [UUID: (attempts: Int, due: Date)] = [:]
    /// Peers not to dial before a time: one answered `busy` (its inbox is
    /// full), or one this host refused as `busy` (until its inbox has room).
    private var pausedUntil: [UUID: Date] = [:]

    /// A schedule with the defaults.
    package init(initialDelay: TimeInterval = 1, maxDelay: TimeInterval = 60, jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    /// Whether `peer` should be tried at `now` (a peer never seen is due).
    package func isDue(_ peer: UUID, now: Date) -> Bool {
        if let until = pausedUntil[peer], now < until { return false }
        guard let entry = entries[peer] else { return true }
        return now >= entry.due
    }

    /// An attempt starts now; the next one waits for the backoff.
    /// `random` is in 0...1 (the caller's randomness, for testability).
    @discardableResult
    package mutating func attempted(_ peer: UUID, now: Date, random: Double) -> Date {
        let attempts = entries[peer]?.attempts ?? 0
        let base = min(maxDelay, initialDelay * Double(1 << min(attempts, 30)))
        let spread = 1 + jitter * (2 * min(max(random, 0), 1) - 1)
        let due = now.addingTimeInterval(min(maxDelay * (1 + jitter), base * spread))
        entries[peer] = (attempts + 1, due)
        return due
    }

    /// The peer is connected: start over next time.
    package mutating func succeeded(_ peer: UUID) {
        entries[peer] = nil
        pausedUntil[peer] = nil
    }

    /// Do not dial `peer` before `until` (its own dials are still taken).
    package mutating func pause(_ peer: UUID, until: Date) {
        pausedUntil[peer] = until
    }

    /// Dial `peer` again as its backoff allows, and at once if it waited
    /// only for the pause.
    package mutating func resume(_ peer: UUID) {
        pausedUntil[peer] = nil
    }

    /// Whether `peer` is paused at `now`.
    package func isPaused(_ peer: UUID, now: Date) -> Bool {
        pausedUntil[peer].map { now < $0 } ?? false
    }

    /// A local link came up or gained an address: every peer is worth a try
    /// at once, and backoff that grew while the network was away starts over.
    package mutating func networkReturned() {
        entries.removeAll()
    }

    /// The peer (re)appeared on the network: try it at once.
    package mutating func appeared(_ peer: UUID, now: Date) {
        if let entry = entries[peer] { entries[peer] = (entry.attempts, min(entry.due, now)) }
    }

    /// How many attempts failed in a row.
    package func attempts(_ peer: UUID) -> Int { entries[peer]?.attempts ?? 0 }
}
