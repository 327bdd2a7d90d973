import FoundationEssentials
import PeerProtocol

/// Every decision `peerctl doctor` makes, as pure functions of what it
/// found: the shell gathers facts (files, tool output, the daemon's
/// answers), these turn them into checks. Each fix is one line a user can
/// act on.
package enum DoctorRules {
    /// peerd answered `status`, or the error connecting.
    package static func daemon(_ status: DaemonStatus?, error: String?, socket: String) -> DoctorCheck {
        guard let status else {
            return DoctorCheck("daemons", .failed, "peerd is not answering on \(socket)", detail: error,
                               fix: "start it: systemctl start peerd (or run peerd); check --socket / $PEERD_SOCKET")
        }
        return DoctorCheck("daemons", .ok, "peerd \(status.version) is up as '\(status.name)', session port \(status.port)")
    }

    /// avahi-daemon as peerd and D-Bus see it.
    package static func avahi(_ status: DaemonStatus?, bus: Bool?, busDetail: String?) -> DoctorCheck {
        let linked = status?.avahi == .running || status?.avahi == .registering || status?.avahi == .collision
        if bus == false || (status != nil && !linked) {
            let seen = [status.map { "peerd's link to avahi-daemon: \($0.avahi.rawValue)\($0.avahiMessage.map { " (\($0))" } ?? "")" }, busDetail].compactMap { $0 }
            return DoctorCheck("daemons", .failed, "avahi-daemon is not running or not reachable over D-Bus", detail: seen.joined(separator: "; "),
                               fix: "start it: systemctl start avahi-daemon (peerd reconnects by itself)", discovery: true)
        }
        if bus == nil { return DoctorCheck("daemons", linked ? .ok : .skipped, "avahi-daemon is linked to peerd", detail: busDetail) }
        return DoctorCheck("daemons", .ok, "avahi-daemon is running and answers on D-Bus", detail: busDetail)
    }

    /// The programs holding UDP 5353 in this network namespace, by name;
    /// `unseenSockets` counts sockets on 5353 whose holder could not be
    /// seen (another user's processes, when not run as root).
    package static func responders(_ holders: [String], unseenSockets: Int = 0) -> DoctorCheck {
        if holders.isEmpty, unseenSockets > 0 {
            return DoctorCheck("daemons", .skipped, "\(unseenSockets) socket\(unseenSockets == 1 ? "" : "s") hold UDP 5353; whose needs root to see",
                               fix: "run 'sudo peerctl doctor' to name them")
        }
        let others = Set(holders.filter { $0 != "avahi-daemon" }).sorted()
        guard others.isEmpty else {
            return DoctorCheck("daemons", .warning, "another mDNS responder holds UDP 5353: \(others.joined(separator: ", "))",
                               detail: "two responders on one host answer and cache apart, and some drop the other's packets",
                               fix: others.contains("systemd-resolve") || others.contains("systemd-resolved")
                                   ? "set MulticastDNS=no in /etc/systemd/resolved.conf, then systemctl restart systemd-resolved"
                                   : "stop or reconfigure \(others.joined(separator: ", ")) so only avahi-daemon answers mDNS", discovery: true)
        }
        return DoctorCheck("daemons", .ok, holders.isEmpty ? "nothing else holds UDP 5353" : "only avahi-daemon holds UDP 5353")
    }

    /// One interface peerd uses.
    package static func interface(_ name: String, up: Bool, multicast: Bool, addresses: [String], avahi: AvahiServerConfig?) -> DoctorCheck {
        let shown = addresses.isEmpty ? "no address" : addresses.joined(separator: ", ")
        if !up {
            return DoctorCheck("interfaces", .failed, "\(name) is down", fix: "ip link set \(name) up (or bring its connection up)", discovery: true)
        }
        if !multicast {
            return DoctorCheck("interfaces", .failed, "\(name) lacks the MULTICAST flag: mDNS cannot use it", detail: shown,
                               fix: "ip link set \(name) multicast on", discovery: true)
        }
        if addresses.isEmpty {
            return DoctorCheck("interfaces", .failed, "\(name) has no address", fix: "give \(name) an address (DHCP, or link-local with avahi-autoipd)", discovery: true)
        }
        if let why = avahi?.excludes(name) {
            return DoctorCheck("interfaces", .failed, "avahi-daemon leaves \(name) out: \(why)",
                               fix: "edit /etc/avahi/avahi-daemon.conf ([server] allow-interfaces / deny-interfaces), then restart avahi-daemon", discovery: true)
        }
        return DoctorCheck("interfaces", .ok, "\(name) is up, multicast, at \(shown)")
    }

    /// The default route's interface.
    package static func defaultRoute(_ interface: String?) -> DoctorCheck {
        guard let interface else { return DoctorCheck("interfaces", .ok, "no default route (a LAN alone is fine)") }
        guard RouteFacts.isVPN(interface) else { return DoctorCheck("interfaces", .ok, "the default route goes by \(interface)") }
        return DoctorCheck("interfaces", .warning, "the default route goes through a VPN (\(interface))",
                           detail: "a full-tunnel VPN often blocks the LAN, and mDNS with it",
                           fix: "allow LAN access in the VPN's settings (split tunnel), or reach peers with 'peerctl add'", discovery: true)
    }

    /// What a firewall (`tool`) does to mDNS and to peerd's session port.
    package static func firewall(_ tool: String, mdns: FirewallVerdict, session: FirewallVerdict, port: UInt16) -> [DoctorCheck] {
        func check(_ verdict: FirewallVerdict, what: String, fix: String, discovery: Bool) -> DoctorCheck {
            switch verdict {
            case .unfiltered: return DoctorCheck("firewall", .ok, "\(tool): no input filtering, \(what) gets in")
            case .accepted(let why): return DoctorCheck("firewall", .ok, "\(tool) lets \(what) in", detail: why)
            case .blocked(let why): return DoctorCheck("firewall", .failed, "\(tool) drops \(what)", detail: why, fix: fix, discovery: discovery)
            }
        }
        return [
            check(mdns, what: "mDNS (UDP 5353)", fix: "nft insert rule inet filter input udp dport 5353 accept (or the same in your firewall's tool)", discovery: true),
            check(session, what: "peerd's sessions (TCP \(port))", fix: "nft insert rule inet filter input tcp dport \(port) accept", discovery: false),
        ]
    }

    /// Our own service, as browsing over Avahi shows it.
    package static func announcement(_ status: DaemonStatus?, records: [AvahiBrowseRecord]?) -> DoctorCheck {
        guard let status else { return DoctorCheck("announcement", .skipped, "peerd's service (peerd is not answering)") }
        guard status.publication == .established else {
            return DoctorCheck("announcement", .failed, "peerd's service '\(status.name)' is not registered (\(status.publication.rawValue))",
                               detail: status.avahiMessage, fix: "see peerd's log (journalctl -u peerd); it registers once avahi-daemon runs", discovery: true)
        }
        guard let records else {
            return DoctorCheck("announcement", .skipped, "peerd's service '\(status.name)' is registered; browsing it needs avahi-browse (avahi-utils)")
        }
        let ours = records.filter { $0.type == status.serviceType && $0.name == status.name }
        guard let seen = ours.first else {
            return DoctorCheck("announcement", .failed, "browsing \(status.serviceType) does not show '\(status.name)'",
                               fix: "restart avahi-daemon; check its log for a name conflict", discovery: true)
        }
        guard seen.txt["id"] == status.peerId else {
            return DoctorCheck("announcement", .failed, "'\(status.name)' is browsable but its TXT id is \(seen.txt["id"] ?? "missing"), not \(status.peerId)",
                               fix: "another host may publish this name: rename one (peerd --name)", discovery: true)
        }
        let interfaces = Set(ours.map { "\($0.interface) \($0.proto)" }).sorted()
        return DoctorCheck("announcement", .ok, "'\(status.name)' is browsable with the right TXT, on \(interfaces.joined(separator: ", "))")
    }

    /// Wide-area DNS-SD (issue 46), when peerd has `--wide-area`: the
    /// server, and how the last update went.
    package static func wideArea(_ status: DaemonStatus?) -> DoctorCheck? {
        guard let w = status?.wideArea else { return nil }
        guard let server = w.server else {
            return DoctorCheck("announcement", .failed, "no DNS server for \(w.domain)", detail: w.serverError,
                               fix: "give it: --dns-server ADDRESS, or add _dns-update._udp.\(w.domain) SRV (or an SOA with a resolvable primary)", discovery: true)
        }
        let found = "\(w.peers) peer\(w.peers == 1 ? "" : "s") found in \(w.browseDomains.joined(separator: ", "))"
        switch w.publication {
        case "off":
            return DoctorCheck("announcement", .ok, "\(w.domain) at \(server): browsing only (no --dns-update-key); \(found)")
        case "published":
            return DoctorCheck("announcement", .ok, "'\(w.name ?? "")' is published in \(w.domain) at \(server); \(found)")
        case "refused":
            return DoctorCheck("announcement", .failed, "\(server) refuses this host's updates to \(w.domain)", detail: w.lastUpdate,
                               fix: "the server must know the key (same name, algorithm and secret) and let it update the zone (Knot: acl action: update; BIND: update-policy)",
                               discovery: true)
        default:
            return DoctorCheck("announcement", .warning, "publishing in \(w.domain) at \(server): \(w.publication)", detail: w.lastUpdate,
                               fix: "see peerd's log (journalctl -u peerd); it retries by itself", discovery: true)
        }
    }
}
