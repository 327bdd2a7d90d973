import FoundationEssentials
import PeerCore

/// What wide-area DNS-SD publishes and where (issue 46), fixed at start:
/// made once from the daemon's configuration, which is also where the
/// TSIG key is read, so `peerd --check-config` and the start refuse a
/// key for the same reasons in the same words.
package struct WideAreaSettings: Sendable {
    /// The domain.
    package var domain: DNSName
    /// The server, or nil to find it.
    package var server: DNSServerAddress?
    /// The key that signs updates; nil: browse only.
    package var key: TSIGKey?
    /// The records' TTL and lease.
    package var ttl: Int
    /// How often the zone's serial is asked, in seconds.
    package var poll: TimeInterval
    /// The most instances followed.
    package var maxInstances: Int

    /// Settings.
    package init(domain: DNSName, server: DNSServerAddress?, key: TSIGKey?, ttl: Int, poll: TimeInterval, maxInstances: Int) {
        self.domain = domain
        self.server = server
        self.key = key
        self.ttl = ttl
        self.poll = poll
        self.maxInstances = maxInstances
    }

    /// The settings `config` gives: nil without `--wide-area`; the
    /// `--dns-update-key` file read (``TSIGKeyLoader``), or why it cannot be used.
    package static func from(_ config: DaemonConfiguration) throws(DaemonStartupError) -> WideAreaSettings? {
        guard let domain = config.wideArea else { return nil }
        var key: TSIGKey?
        if let path = config.dnsUpdateKey {
            switch TSIGKeyLoader.load(path) {
            case .success(let loaded): key = loaded
            case .failure(let why): throw .dnsUpdateKey(why.description)
            }
        }
        return WideAreaSettings(domain: domain, server: config.dnsServer, key: key, ttl: config.wideAreaTTL,
                                poll: Double(config.wideAreaPollMilliseconds) / 1000, maxInstances: config.maxUnverifiedPeers)
    }
}
