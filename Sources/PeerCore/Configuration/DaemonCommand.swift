/// What `peerd`'s command line asks for.
package import PeerProtocol
package enum DaemonCommand: Equatable, Sendable {
    /// Run the daemon.
    case run(DaemonConfiguration)
    /// Print help.
    case help
    /// Print the version.
    case version
    /// Validate the configuration (file and flags) and exit.
    case checkConfig(DaemonConfiguration)

    /// The help text; lists every flag.
    package static let helpText = """
    Usage: peerd [OPTIONS]

    Peer-to-peer LAN discovery daemon. Advertises this host over mDNS/DNS-SD
    (through avahi-daemon), tracks the peers it finds, and serves them to
    local clients (peerctl) on a Unix socket. Runs in the foreground and logs
    to stderr with systemd priority prefixes.

    Options:
      --name NAME             display name and DNS-SD instance name
                              (default: the host name)
      --service-type TYPE     DNS-SD service type (default: _peerd._tcp)
      --info KEY=VALUE        extra TXT pair; repeatable. Keys: at most 9
                              characters; a pair at most 255 bytes; the whole
                              TXT record at most 1300 bytes
      --state-dir DIR         where the identity key is kept
                              (default: /var/lib/peerd)
      --interface IFACE       browse and publish only on IFACE; repeatable
                              (default: every interface)
      --port PORT             session TCP port, on all addresses, IPv4 and
                              IPv6 (default: 0, the last run's port if it
                              is free, else 7717 if free, else any free port)
      --lane-port PORT|off    the bulk lane's TCP port: files and streams move
                              on a connection of their own beside each session
                              (default: 0, any free port; a firewall must let
                              peers reach it, or bulk falls back to the
                              session; off: no lanes)
      --wide-area DOMAIN      also discover peers through the site's DNS (wide-area
                              DNS-SD, RFC 6763 §11): browse DOMAIN, and publish
                              this host there when --dns-update-key is given
      --dns-update-key FILE   TSIG key for the updates, as tsig-keygen (BIND) or
                              keymgr -t (Knot) writes it; mode 0600
      --dns-server ADDRESS[:PORT]
                              the DNS server to ask and update (default: found
                              from DOMAIN's _dns-update._udp SRV or its SOA)
      --wide-area-ttl S       TTL and lease of the published records: a host
                              that dies leaves other lists within this
                              (default: 120, 5 to 86400)
      --wide-area-poll MS     how often the zone's serial is asked (default: 500)
      --socket PATH           control socket (default: /run/peerd/peerd.sock)
      --max-peers N           most peers tracked (default: 256)
      --max-unverified-peers N
                              most of them known from mDNS alone, with no
                              handshake proving their key yet (default: 64);
                              paired peers and peers that connect still get rows
      --event-history N       events kept for `subscribe since=N` (default: 1024)
      --subscriber-queue BYTES
                              bytes queued for one slow subscriber before it is
                              dropped (default: 1048576)
      --log-level LEVEL       error, warning, notice, info or debug (default: info)
      --max-message BYTES     largest message a peer may send; larger closes the
                              session as tooLarge (default: 16777216)
      --inbox-size BYTES      disk kept for messages no client has taken yet;
                              when full, peers get busy and keep their queues
                              (default: 67108864; at least one --max-message)
      --max-sessions N        most sessions at once (default: 64)
      --max-clients N         most control clients at once (default: 64)
      --connection-rate N     new session connections per second from one
                              address (default: 20, bursts of 40)
      --invitation-rate N     invitations from unpaired peers per minute
                              (default: 30)
      --max-pending N         accepted connections still in their handshake
                              (default: 16, and at most 4 per address)
      --auto-accept POLICY    none, paired or all: invitations accepted without
                              asking a client (default: paired)
      --auto-connect yes|no   open sessions to paired peers by itself (default: yes)
      --pairing-timeout S     seconds a pairing may take (default: 60)
      --download-dir PATH     where received files land, in a folder per peer
                              (default: STATE_DIR/downloads)
      --offer-timeout S       seconds a file offer waits for a decision before
                              it is declined as timed out (default: 600)
      --partial-lifetime S    seconds the partial files of a transfer that
                              stopped are kept for a resume, then swept
                              (default: 604800, a week)
      --allow-local-add       let 'add' dial loopback and this host's own
                              addresses (refused by default)
      --public-read           let users outside the peerd group read status and
                              peers (the control socket becomes mode 0666)
      --group NAME            the group whose members may drive peerd
                              (default: peerd; root always may)
      --app-user NAME=USER    keep app NAME for USER (a name or uid): no other
                              user (root aside) may register it; repeatable
      --app-group NAME=GROUP  keep app NAME for the members of GROUP; repeatable
      --app-auto-accept NAME=POLICY
                              none, paired or all: app NAME's invitations
                              accepted without asking a client (default none;
                              the app must be declared or held); repeatable
      --reset-trust           move a corrupt trust store aside (every pairing is
                              forgotten) instead of refusing to start
      --config PATH           configuration file (default: /etc/peerd/peerd.conf,
                              if present); flags override it
      --check-config          validate the configuration and exit
      --version               print the release, wire version and features; exit
      -h, --help              print this help and exit

    Environment:
      DBUS_SYSTEM_BUS_ADDRESS the D-Bus system bus where avahi-daemon listens

    Signals: SIGINT and SIGTERM withdraw the service, remove the control
    socket and exit 0.
    """

    /// The `--config` path given in `arguments`, if any (read before the rest).
    package static func configPath(in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return nil }
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
            if argument == "--config", index + 1 < arguments.count { return arguments[index + 1] }
        }
        return nil
    }

    /// Parses the configuration file's text, then the command line over it.
    /// A repeatable key given on the command line replaces the file's values.
    package static func parse(_ arguments: [String], defaultName: String, configText: String?) throws(UsageError) -> DaemonCommand {
        var base = DaemonConfiguration(name: defaultName)
        if let configText {
            for entry in try ConfigFile.entries(configText) {
                do {
                    guard case .run(let next) = try parse(try ConfigFile.arguments(for: entry), base: base) else { continue }
                    base = next
                } catch {
                    let message = error.message.hasPrefix("line ") ? error.message : "line \(entry.line): \(entry.key): \(error.message)"
                    throw UsageError(message)
                }
            }
        }
        if arguments.contains(where: { $0 == "--interface" || $0.hasPrefix("--interface=") }) { base.interfaces = [] }
        if arguments.contains(where: { $0 == "--info" || $0.hasPrefix("--info=") }) { base.info = [] }
        return try parse(arguments, base: base)
    }

    /// Parses `peerd`'s arguments (without the program name).
    package static func parse(_ arguments: [String], defaultName: String) throws(UsageError) -> DaemonCommand {
        try parse(arguments, base: DaemonConfiguration(name: defaultName))
    }

    /// Parses arguments over `base`.
    package static func parse(_ arguments: [String], base: DaemonConfiguration) throws(UsageError) -> DaemonCommand {
        var config = base
        var check = false
        var cursor = ArgumentCursor(arguments)
        while let token = try cursor.next() {
            guard case .option(let option) = token else {
                if case .positional(let word) = token { throw UsageError("unexpected argument '\(word)'") }
                continue
            }
            switch option {
            case "-h", "--help":
                try cursor.flag(option)
                return .help
            case "--version":
                try cursor.flag(option)
                return .version
            case "--config":
                _ = try cursor.value(for: option)
            case "--check-config":
                try cursor.flag(option)
                check = true
            case "--name":
                config.name = try cursor.value(for: option)
                guard !config.name.isEmpty, config.name.utf8.count <= 63 else {
                    throw UsageError("--name must be 1 to 63 bytes (a DNS label)")
                }
            case "--service-type":
                config.serviceType = try cursor.value(for: option)
                guard DaemonConfiguration.isValidServiceType(config.serviceType) else {
                    throw UsageError("--service-type '\(config.serviceType)' is not of the form _name._tcp or _name._udp")
                }
            case "--info":
                do { config.info.append(try TXTRecord.parseInfo(try cursor.value(for: option))) } catch let error as TXTRecordError {
                    throw UsageError(error.description)
                } catch let error as UsageError { throw error } catch { throw UsageError("\(error)") }
            case "--state-dir": config.stateDirectory = try cursor.value(for: option)
            case "--interface":
                let name = try cursor.value(for: option)
                guard !name.isEmpty, name.utf8.count < 16 else { throw UsageError("--interface '\(name)' is not an interface name") }
                if !config.interfaces.contains(name) { config.interfaces.append(name) }
            case "--port": config.port = UInt16(try cursor.integer(for: option, in: 0...65535))
            case "--lane-port":
                let text = try cursor.value(for: option)
                guard text != "off" else {
                    config.lanePort = nil
                    break
                }
                guard let number = UInt16(text) else { throw UsageError("option \(option): '\(text)' is not a port from 0 to 65535, or off") }
                config.lanePort = number
            case "--wide-area":
                let text = try cursor.value(for: option)
                guard let domain = DNSName(dotted: text), !domain.labels.isEmpty,
                      domain.description.lowercased() != "local", !domain.description.lowercased().hasSuffix(".local") else {
                    throw UsageError("--wide-area '\(text)': expected a unicast DNS domain such as peers.example.org (not .local: that is mDNS's)")
                }
                config.wideArea = domain
            case "--dns-update-key": config.dnsUpdateKey = try cursor.value(for: option)
            case "--dns-server":
                let text = try cursor.value(for: option)
                guard let server = DNSServerAddress(text) else {
                    throw UsageError("--dns-server '\(text)': expected a numeric address with an optional port (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:53)")
                }
                config.dnsServer = server
            case "--wide-area-ttl": config.wideAreaTTL = try cursor.integer(for: option, in: 5...86_400)
            case "--wide-area-poll": config.wideAreaPollMilliseconds = try cursor.integer(for: option, in: 100...600_000)
            case "--socket":
                config.socketPath = try cursor.value(for: option)
                // sun_path holds 108 bytes including the NUL.
                guard !config.socketPath.isEmpty, config.socketPath.utf8.count < 108 else {
                    throw UsageError("--socket path must be 1 to 107 bytes")
                }
            case "--max-peers": config.maxPeers = try cursor.integer(for: option, in: 1...100_000)
            case "--max-unverified-peers": config.maxUnverifiedPeers = try cursor.integer(for: option, in: 1...100_000)
            case "--event-history": config.eventHistory = try cursor.integer(for: option, in: 1...1_000_000)
            case "--subscriber-queue": config.subscriberQueueBytes = try cursor.integer(for: option, in: 4096...(1 << 30))
            case "--max-message": config.maxMessage = try cursor.integer(for: option, in: 1024...(1 << 30))
            case "--inbox-size": config.inboxBytes = try cursor.integer(for: option, in: 65536...(1 << 40))
            case "--max-sessions": config.maxSessions = try cursor.integer(for: option, in: 1...4096)
            case "--connection-rate": config.connectionRate = try cursor.integer(for: option, in: 1...100_000)
            case "--invitation-rate": config.invitationRate = try cursor.integer(for: option, in: 1...100_000)
            case "--max-clients": config.maxClients = try cursor.integer(for: option, in: 1...4096)
            case "--max-pending": config.maxPendingHandshakes = try cursor.integer(for: option, in: 1...4096)
            case "--auto-accept":
                let text = try cursor.value(for: option)
                guard let policy = AutoAcceptPolicy(rawValue: text) else { throw UsageError("--auto-accept '\(text)': expected none, paired or all") }
                config.autoAccept = policy
            case "--auto-connect":
                let text = try cursor.value(for: option)
                guard text == "yes" || text == "no" else { throw UsageError("--auto-connect '\(text)': expected yes or no") }
                config.autoConnect = text == "yes"
            case "--pairing-timeout": config.pairingTimeout = Double(try cursor.integer(for: option, in: 5...3600))
            case "--download-dir":
                let path = try cursor.value(for: option)
                guard path.hasPrefix("/") else { throw UsageError("--download-dir must be an absolute path") }
                config.downloadDirectory = path
            case "--offer-timeout": config.offerTimeout = Double(try cursor.integer(for: option, in: 1...86_400))
            case "--partial-lifetime": config.partialLifetime = Double(try cursor.integer(for: option, in: 60...31_536_000))
            case "--public-read":
                try cursor.flag(option)
                config.publicRead = true
            case "--allow-local-add":
                try cursor.flag(option)
                config.allowLocalAdd = true
            case "--group": config.group = try cursor.value(for: option)
            case "--app-user", "--app-group":
                let text = try cursor.value(for: option)
                guard let eq = text.firstIndex(of: "="), !text[text.index(after: eq)...].isEmpty else {
                    throw UsageError("\(option) '\(text)': expected NAME=\(option == "--app-user" ? "USER" : "GROUP")")
                }
                let app: AppName
                do { app = try AppName(String(text[..<eq])) } catch { throw UsageError("\(option) '\(text)': \(error)") }
                guard config.appReservations[app] == nil else { throw UsageError("\(option): app '\(app.text)' is reserved twice") }
                let who = String(text[text.index(after: eq)...])
                config.appReservations[app] = option == "--app-user" ? .user(who) : .group(who)
            case "--app-auto-accept":
                let text = try cursor.value(for: option)
                guard let eq = text.firstIndex(of: "="), let policy = AutoAcceptPolicy(rawValue: String(text[text.index(after: eq)...])) else {
                    throw UsageError("--app-auto-accept '\(text)': expected NAME=POLICY (none, paired or all)")
                }
                let app: AppName
                do { app = try AppName(String(text[..<eq])) } catch { throw UsageError("--app-auto-accept '\(text)': \(error)") }
                config.appAutoAccept[app] = policy
            case "--reset-trust":
                try cursor.flag(option)
                config.resetTrust = true
            case "--log-level":
                let text = try cursor.value(for: option)
                guard let level = LogLevel(name: text) else {
                    throw UsageError("--log-level '\(text)': expected one of \(LogLevel.allCases.map(\.name).joined(separator: ", "))")
                }
                config.logLevel = level
            default:
                throw UsageError("unknown option '\(option)' (see peerd --help)")
            }
        }
        // A message the daemon accepts must fit the inbox, or it could never
        // be stored and its sender would be refused forever.
        let largest = InboxFileCodec.recordSize(dataCount: config.maxMessage)
        guard config.inboxBytes >= largest else {
            throw UsageError("--inbox-size \(config.inboxBytes) cannot hold one --max-message message (\(config.maxMessage) bytes take \(largest) on disk)")
        }
        // Check the TXT limits now, so a bad --info is a usage error before
        // anything starts. Peer ids are always 32 hex digits.
        do { _ = try TXTRecord(peerID: String(repeating: "0", count: 32), info: config.info) } catch { throw UsageError(error.description) }
        if config.wideArea == nil, config.dnsUpdateKey != nil || config.dnsServer != nil {
            throw UsageError("--dns-update-key and --dns-server need --wide-area DOMAIN")
        }
        return check ? .checkConfig(config) : .run(config)
    }
}
