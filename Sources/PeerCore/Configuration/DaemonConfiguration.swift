/// Everything `peerd` is told on its command line.
package import PeerProtocol
package struct DaemonConfiguration: Sendable, Equatable {
    /// The default DNS-SD service type.
    package static let defaultServiceType = "_peerd._tcp"
    /// The default control socket path.
    package static let defaultSocketPath = ControlProtocol.systemSocketPath
    /// The default state directory (systemd's StateDirectory=peerd).
    package static let defaultStateDirectory = "/var/lib/peerd"
    /// The default peer cap.
    package static let defaultMaxPeers = 256

    /// Display name and DNS-SD instance name.
    package var name: String
    /// DNS-SD service type.
    package var serviceType = defaultServiceType
    /// Extra TXT pairs.
    package var info: [TXTEntry] = []
    /// Where the identity key lives.
    package var stateDirectory = defaultStateDirectory
    /// Interfaces to browse and publish on; empty means all.
    package var interfaces: [String] = []
    /// Session port; 0 picks a free one.
    package var port: UInt16 = 0
    /// The bulk lane's TCP port (docs/protocol.md §12); 0 picks a free
    /// one, nil is `off`: no lanes, files and streams stay on the session.
    package var lanePort: UInt16? = 0
    /// Control socket path.
    package var socketPath = defaultSocketPath
    /// Peer cap.
    package var maxPeers = defaultMaxPeers
    /// Cap on rows made from mDNS alone, before any handshake proved the
    /// peer's key: a flood of fake advertisements takes at most these.
    package var maxUnverifiedPeers = 64
    /// Events held for `subscribe since=N`.
    package var eventHistory = 1024
    /// Bytes queued for one subscriber before it is dropped as too slow.
    package var subscriberQueueBytes = 1 << 20
    /// Most verbose level logged.
    package var logLevel = LogLevel.info
    /// The largest application message, reassembled (`--max-message`).
    package var maxMessage = 16 << 20
    /// `--inbox-size`: record bytes the durable inbox holds (64 MiB).
    package var inboxBytes = 64 << 20
    /// The most sessions (connected or being set up) at once.
    package var maxSessions = 64
    /// Which invitations are accepted without a client.
    package var autoAccept = AutoAcceptPolicy.paired
    /// Open sessions to paired peers by itself.
    package var autoConnect = true
    /// Move a corrupt trust store aside instead of refusing to start.
    package var resetTrust = false
    /// Seconds a pairing may take.
    package var pairingTimeout: Double = 60
    /// Let users outside the `peerd` group read `status` and `peers`
    /// (the control socket is then mode 0666).
    package var publicRead = false
    /// The group whose members may drive the daemon.
    package var group = "peerd"
    /// Control clients at once.
    package var maxClients = 64
    /// Accepted connections still in their handshake, in all and per address.
    package var maxPendingHandshakes = 16
    /// Per remote address.
    package var maxPendingHandshakesPerAddress = 4
    /// New session connections per second from one address (bursts of twice that).
    package var connectionRate = 20
    /// Invitations from unpaired peers per minute, all together.
    package var invitationRate = 30

    /// `--download-dir`: where received files land, in a folder per peer
    /// (nil: `downloads` in the state directory).
    package var downloadDirectory: String?
    /// `--offer-timeout`: seconds a transfer offer waits for a decision.
    package var offerTimeout: Double = 600
    /// `--allow-local-add`: `add` may dial loopback and this host's own
    /// addresses (refused by default: `add` is no port scanner).
    package var allowLocalAdd = false
    /// `--partial-lifetime`: seconds the partial files of a transfer that
    /// stopped are kept for a resume before the sweep removes them.
    package var partialLifetime: Double = 604_800
    /// `--app-user`, `--app-group` (or `[app "NAME"]` sections): app names
    /// kept for one user or group (issue 23).
    package var appReservations: [AppName: AppReservationRule] = [:]
    /// `--app-auto-accept NAME=POLICY` (or `auto-accept` in an `[app
    /// "NAME"]` section): the app's own policy for invitations; none for
    /// an app not named.
    package var appAutoAccept: [AppName: AutoAcceptPolicy] = [:]
    /// `--wide-area DOMAIN` (issue 46): a unicast DNS domain to browse, and
    /// to publish into when a key is given; nil: mDNS alone.
    package var wideArea: DNSName?
    /// `--dns-update-key FILE`: the TSIG key that signs the updates (BIND's
    /// `tsig-keygen` or Knot's `keymgr -t` format, mode 0600); nil: browse only.
    package var dnsUpdateKey: String?
    /// `--dns-server ADDRESS[:PORT]`: the server to ask and update; nil:
    /// found from the domain's `_dns-update._udp` SRV or SOA.
    package var dnsServer: DNSServerAddress?
    /// `--wide-area-ttl SECONDS`: the TTL of the published records and the
    /// length of their lease; a host that stops without removing them
    /// (killed, unplugged) leaves other hosts' lists within this.
    package var wideAreaTTL = 120
    /// `--wide-area-poll MS`: how often the zone's serial is asked, so a
    /// new peer is listed this soon after its records can be resolved.
    package var wideAreaPollMilliseconds = 500
    /// Where received files land.
    package var downloads: String { downloadDirectory ?? stateDirectory + "/downloads" }

    /// A configuration with defaults and the given name.
    package init(name: String) { self.name = name }

    /// Checks a DNS-SD service type such as `_peerd._tcp`.
    package static func isValidServiceType(_ type: String) -> Bool {
        let parts = type.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1] == "_tcp" || parts[1] == "_udp" else { return false }
        let service = parts[0]
        // RFC 6335: 1-15 characters after the underscore, letters, digits, hyphens.
        guard service.hasPrefix("_"), (2...16).contains(service.count) else { return false }
        return service.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
}
