import FoundationEssentials

/// `status`'s `wideArea` (since 0.4.0, issue 46): discovery through the
/// site's DNS, when `--wide-area` is set. Absent otherwise.
public struct WideAreaStatus: Codable, Sendable, Equatable {
    /// The domain browsed (and published into, with a key).
    public var domain: String
    /// The server asked and updated (`10.0.0.53:53`), once found.
    public var server: String?
    /// The zone that holds the domain, once found.
    public var zone: String?
    /// Why no server is in use, when none is.
    public var serverError: String?
    /// `off` (no key: browse only), `checking`, `updating`, `published`,
    /// `refused`, `failed` or `stopped`.
    public var publication: String
    /// The instance name published (after any rename for a collision).
    public var name: String?
    /// The last update's result in words (`applied`, `refused: …`).
    public var lastUpdate: String?
    /// When that result came.
    public var lastUpdateAt: Date?
    /// Instances of the domain that resolved to an address.
    public var peers: Int
    /// Names followed in the domain (at most the unverified-peer cap).
    public var followed: Int
    /// Every domain browsed: the configured one, then those the host's
    /// search domains name through `b._dns-sd._udp` (RFC 6763 §11).
    public var browseDomains: [String]

    /// A status.
    public init(domain: String, server: String?, zone: String?, serverError: String?, publication: String, name: String?,
                lastUpdate: String?, lastUpdateAt: Date?, peers: Int, followed: Int, browseDomains: [String]) {
        self.browseDomains = browseDomains
        self.domain = domain
        self.server = server
        self.zone = zone
        self.serverError = serverError
        self.publication = publication
        self.name = name
        self.lastUpdate = lastUpdate
        self.lastUpdateAt = lastUpdateAt
        self.peers = peers
        self.followed = followed
    }
}
