package import FoundationEssentials

/// A token bucket per key: `burst` events at once, refilled at `perSecond`.
/// Keys are forgotten once their bucket is full again, so the table stays
/// as small as the set of keys active in the last few seconds.
package struct RateLimiter<Key: Hashable & Sendable>: Sendable {
    /// Sustained events per second.
    package let perSecond: Double
    /// Events allowed at once.
    package let burst: Double
    private var buckets: [Key: (tokens: Double, at: Date)] = [:]

    /// A limiter of `perSecond` with bursts of `burst`.
    package init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Takes one token for `key`; false when none is left.
    package mutating func allow(_ key: Key, now: Date) -> Bool {
        var bucket = buckets[key] ?? (burst, now)
        bucket.tokens = min(burst, bucket.tokens + now.timeIntervalSince(bucket.at) * perSecond)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            return false
        }
        bucket.tokens -= 1
        buckets[key] = bucket
        if buckets.count > 1024 { prune(now: now) }
        return true
    }

    /// Keys tracked (for tests).
    package var trackedKeys: Int { buckets.count }

    private mutating func prune(now: Date) {
        buckets = buckets.filter { min(burst, $0.value.tokens + now.timeIntervalSince($0.value.at) * perSecond) < burst }
    }
}
