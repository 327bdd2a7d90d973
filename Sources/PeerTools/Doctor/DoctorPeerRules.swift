import FoundationEssentials
import PeerProtocol

/// `peerctl doctor PEER`'s decisions about one peer.
package enum DoctorPeerRules {
    /// How a TCP connect to a peer's port ended.
    package enum PortProbe: Equatable, Sendable {
        /// It connected.
        case open
        /// RST: nothing listens.
        case refused
        /// No answer: filtered.
        case timedOut
        /// Another error (no route, say).
        case failed(String)
    }

    /// The wide-area domains a peer was found in (its `dns:DOMAIN` sources).
    package static func dnsDomains(of peer: PeerSnapshot) -> [String] {
        (peer.sources ?? []).filter { $0.hasPrefix("dns:") }.map { String($0.dropFirst(4)) }
    }

    /// Whether and where it is seen.
    package static func seen(_ peer: PeerSnapshot, now: Date) -> DoctorCheck {
        let dns = dnsDomains(of: peer)
        let interfaces = Set(peer.endpoints.map { $0.interface.isEmpty ? (dns.isEmpty ? "added by address" : "DNS (\(dns.joined(separator: ", ")))")
                                                                       : "\($0.interface) \($0.family.rawValue)" }).sorted()
        if peer.lost {
            return DoctorCheck("peer", .failed, "'\(peer.name)' is lost: last seen \(RelativeTime.describe(peer.lastSeen, now: now))",
                               detail: peer.session.map { "session with \($0)" },
                               fix: "is peerd running there? If it is on another network, reach it with 'peerctl add HOST'", discovery: true)
        }
        if peer.endpoints.isEmpty {
            return DoctorCheck("peer", .warning, "'\(peer.name)' is known only by its session\(peer.session.map { " with \($0)" } ?? ""), not by mDNS",
                               fix: "fine for a peer added by address; otherwise check the multicast lines below", discovery: true)
        }
        return DoctorCheck("peer", .ok, "'\(peer.name)' is seen now on \(interfaces.joined(separator: ", "))")
    }

    /// Whether `endpoint` is on a link of ours (no gateway between); a
    /// peer found through DNS (`viaDNS`) needs no link, only a route.
    package static func subnet(_ endpoint: Endpoint, route: RouteFacts.Route?, viaDNS: Bool = false) -> DoctorCheck {
        guard let route else {
            return DoctorCheck("peer", .failed, "no route to \(endpoint.address)", fix: "check this host's addresses and routes (ip route)")
        }
        if let gateway = route.gateway, viaDNS {
            return DoctorCheck("peer", .ok, "\(endpoint.address) is on another subnet, via \(gateway); found through DNS, which crosses routers")
        }
        if let gateway = route.gateway {
            return DoctorCheck("peer", .warning, "\(endpoint.address) is on another subnet: reached via \(gateway)\(route.device.map { " on \($0)" } ?? "")",
                               detail: "mDNS does not cross routers",
                               fix: "use 'peerctl add \(endpoint.family == .ipv6 ? "[\(endpoint.address)]:\(endpoint.port)" : "\(endpoint.address):\(endpoint.port)")' to reach it by address", discovery: true)
        }
        return DoctorCheck("peer", .ok, "\(endpoint.address) is on our link\(route.device.map { " (\($0))" } ?? "")")
    }

    /// What a connect to the peer's session port did; `dnsDomains` are the
    /// wide-area domains whose records gave the address (a record may
    /// outlive its host until its lease ends).
    package static func port(_ endpoint: Endpoint, _ probe: PortProbe, dnsDomains: [String] = []) -> DoctorCheck {
        if !dnsDomains.isEmpty, probe != .open {
            let inner = port(endpoint, probe)
            return DoctorCheck("peer", .failed, "\(endpoint.hostPort) is in DNS (\(dnsDomains.joined(separator: ", "))) but does not answer: \(inner.title)",
                               detail: "a wide-area record is a claim: its host may have stopped without removing it (killed, unplugged) and its lease not run out yet, or moved",
                               fix: "if the host is gone, its row goes when the lease ends (peerd --wide-area-ttl there); if it runs, \(inner.fix ?? "check the way to it")")
        }
        switch probe {
        case .open: return DoctorCheck("peer", .ok, "\(endpoint.hostPort) answers")
        case .refused:
            return DoctorCheck("peer", .failed, "\(endpoint.hostPort) refuses connections: nothing listens there",
                               fix: "peerd is not running there, or listens on another port ('peerctl status' there)")
        case .timedOut:
            return DoctorCheck("peer", .failed, "\(endpoint.hostPort) does not answer: filtered",
                               fix: "a firewall on the way or on the peer drops it: allow TCP \(endpoint.port) there")
        case .failed(let why):
            return DoctorCheck("peer", .failed, "cannot connect to \(endpoint.hostPort): \(why)", fix: "check routes and addresses (ip route get \(endpoint.address))")
        }
    }

    /// Whether its TXT format is ours.
    package static func version(_ peer: PeerSnapshot) -> DoctorCheck {
        guard let theirs = peer.info["txtvers"] else {
            return DoctorCheck("peer", peer.endpoints.isEmpty ? .skipped : .warning, "'\(peer.name)' advertises no txtvers",
                               fix: peer.endpoints.isEmpty ? nil : "it may not be peerd; update it if it is")
        }
        guard theirs == TXTVersion.current else {
            return DoctorCheck("peer", .failed, "'\(peer.name)' speaks TXT version \(theirs); this host speaks \(TXTVersion.current)",
                               fix: "update peerd on the older side")
        }
        return DoctorCheck("peer", .ok, "'\(peer.name)' speaks our protocol version (\(theirs))")
    }

    /// What its release can do, as its last session's handshake said
    /// (docs/protocol.md §9): a peer without a feature is told so, with
    /// what it cannot do. Apps are left to ``app(_:_:)``, datagrams to
    /// ``datagrams(_:peer:ownPort:)``: a host that uses none loses nothing
    /// with a peer that has none.
    package static func release(_ peer: PeerSnapshot) -> DoctorCheck {
        guard let release = peer.release else {
            return DoctorCheck("peer", .skipped, "no session with '\(peer.name)' has said its release yet", fix: "invite it, then ask again")
        }
        let announced = Set(peer.features ?? [])
        let missing = WireFeature.allCases.filter { !announced.contains($0.rawValue) && $0.addedIn == "0.2.0" && $0 != .acceptName }
        guard missing.isEmpty else {
            return DoctorCheck("peer", .warning, "'\(peer.name)' runs peerd \(release), which cannot \(missing.map(\.ability).joined(separator: " or "))",
                               detail: "it announced \(announced.isEmpty ? "no features" : "only " + announced.sorted().joined(separator: ", ")); messages, queues, pairing and channels work",
                               fix: "upgrade peerd on '\(peer.name)'")
        }
        return DoctorCheck("peer", .ok, "'\(peer.name)' runs peerd \(release), with every feature this host uses")
    }

    /// Whether datagrams cross between this host and the peer (its
    /// `peer` result's `datagrams`; docs/protocol.md §11): the path's state,
    /// and for a blocked one, which UDP ports a firewall must let through.
    /// `ownPort` is this host's UDP port (nil: it has none).
    package static func datagrams(_ info: DatagramInfo?, peer: String, ownPort: Int?) -> DoctorCheck {
        guard let info else {
            return DoctorCheck("peer", .skipped, "datagrams: '\(peer)' is not connected, and the datagram path is the session's", fix: "invite it, then ask again")
        }
        let ports = "UDP port \(info.port.map(String.init) ?? "?") on '\(peer)' and UDP port \(ownPort.map(String.init) ?? "?") here"
        switch info.path {
        case "up":
            return DoctorCheck("peer", .ok, "datagrams cross both ways" + (info.roundTripMs.map { " (probe round trip \($0) ms)" } ?? ""))
        case "probing", "waiting":
            return DoctorCheck("peer", .skipped, "datagrams: the path to '\(peer)' is still being probed", fix: "ask again in 5 s")
        case "blocked":
            return DoctorCheck("peer", .failed, "datagrams do not cross between this host and '\(peer)': no probe was answered",
                               detail: "the session (TCP) works, so UDP alone is stopped: a firewall, or a network that drops UDP; datagrams are refused as 'unreachable', never moved onto the session",
                               fix: "let \(ports) through the firewalls (nft list ruleset)")
        case "off":
            return DoctorCheck("peer", .failed, "datagrams: one side has no UDP socket", detail: ownPort == nil ? "this host has none: see 'peerctl status'" : "'\(peer)' has none: its log says why",
                               fix: "restart peerd on the side without one once its UDP port is free")
        default:
            return DoctorCheck("peer", .skipped, "datagrams: '\(peer)' runs a release without them", fix: "upgrade peerd on '\(peer)' to use datagrams with it")
        }
    }

    /// Which path the peer's file and stream bytes take (its `peer`
    /// result's `bulk`; docs/protocol.md §12): the lane, or the session's
    /// stream and why, and for a lane that could not be reached, which
    /// port a firewall must let through. On the stream nothing is lost
    /// but speed and round trips beside bulk: a warning, not a failure.
    package static func bulk(_ info: BulkPathInfo, peer: String) -> DoctorCheck {
        switch info.path {
        case BulkPathInfo.lane:
            return DoctorCheck("peer", .ok, "files and streams with '\(peer)' go on a lane of their own")
        case BulkPathInfo.opening:
            return DoctorCheck("peer", .skipped, "bulk: the lane to '\(peer)' is being opened", fix: "ask again in 5 s")
        default:
            let why = info.reason ?? "no reason given"
            let older = why.contains("has no bulk lane")
            let port = info.port.map { info.portOf == "self" ? "TCP port \($0) on this host (peerctl status: bulk lanes)" : "TCP port \($0) on '\(peer)'" }
                ?? "the lane port on '\(peer)' (peerctl status there)"
            return DoctorCheck("peer", .warning, "bulk: files and streams with '\(peer)' go on the session's own connection: \(why)",
                               detail: "they still arrive whole, slower, and messages wait behind them",
                               fix: older ? "upgrade peerd on '\(peer)' to 0.4.0 or later"
                                   : why.contains("off") ? "set lane-port on the host that has it off (peerd.conf)"
                                   : "let \(port) through the firewalls (nft list ruleset), or give it a fixed lane-port to open")
        }
    }

    /// Whether the peer runs `app` (`doctor PEER --app NAME`): whether its
    /// release carries apps, whether it advertises the app, and whether its
    /// daemon confirmed it over the session (heard over mDNS, it is a claim).
    package static func app(_ app: String, _ peer: PeerSnapshot) -> DoctorCheck {
        if let release = peer.release, let features = peer.features, !features.contains(WireFeature.apps.rawValue) {
            return DoctorCheck("peer", .failed, "'\(peer.name)' runs peerd \(release), which cannot \(WireFeature.apps.ability)",
                               detail: "app traffic to it is answered unsupported; the default app works", fix: "upgrade peerd on '\(peer.name)'")
        }
        guard let advertised = peer.apps?[app] else {
            let others = (peer.apps ?? [:]).keys.sorted()
            return DoctorCheck("peer", .failed, "'\(peer.name)' does not advertise app '\(app)'",
                               detail: others.isEmpty ? "it advertises no app" : "it advertises \(others.joined(separator: ", "))",
                               fix: "start the app on '\(peer.name)' (peerctl --app \(app) …, or peerctl apps add \(app) there)")
        }
        if advertised.confirmed { return DoctorCheck("peer", .ok, "'\(peer.name)' runs app '\(app)', confirmed over the session") }
        return DoctorCheck("peer", .ok, "'\(peer.name)' advertises app '\(app)'",
                           detail: "heard over mDNS only: no session has confirmed it yet")
    }

    /// Whether `app` is connected with the peer (its invitation accepted
    /// there), for `doctor PEER --app NAME`.
    package static func appState(_ app: String, _ peer: PeerSnapshot, state: ConnectionState) -> DoctorCheck {
        switch state {
        case .connected: DoctorCheck("peer", .ok, "app '\(app)' is connected with '\(peer.name)': it accepted")
        case .connecting: DoctorCheck("peer", .warning, "app '\(app)' is inviting '\(peer.name)', or being invited", fix: "answer the invitation on the invited host")
        case .notConnected: DoctorCheck("peer", .warning, "app '\(app)' is not connected with '\(peer.name)'",
                                        detail: "its traffic goes only once its invitation is accepted there",
                                        fix: "peerctl --app \(app) invite \(peer.name) (a client of '\(app)' there answers, or its --app-auto-accept)")
        }
    }

    /// Whether what it advertises matches the key it proved.
    package static func identity(_ peer: PeerSnapshot, mismatches: [IdentityMismatchInfo], trusted: TrustRecord?) -> DoctorCheck {
        if let mismatch = mismatches.last {
            return DoctorCheck("peer", .failed, "\(mismatch.address) advertised id \(mismatch.expected) but proved \(mismatch.actual)",
                               detail: "someone else answers at that address, or the peer's key changed",
                               fix: "if the peer was reinstalled: peerctl unpair it, then pair again")
        }
        if let trusted, let peerID = peer.peerId, trusted.peerId != peerID {
            return DoctorCheck("peer", .failed, "'\(peer.name)' advertises \(peerID) but is paired as \(trusted.peerId)", fix: "peerctl unpair it, then pair again")
        }
        guard let peerID = peer.peerId else {
            return DoctorCheck("peer", .warning, "'\(peer.name)' advertises no id: it is not peerd", fix: "nothing to do if it is another program")
        }
        return DoctorCheck("peer", .ok, "its advertised id \(peerID) matches \(trusted != nil ? "the key it was paired with" : "every key it proved here")")
    }

    /// Pairing, and failures on record.
    package static func pairing(_ peer: PeerSnapshot, failures: [PairingFailure]) -> DoctorCheck {
        if failures.contains(.lockedOut) {
            return DoctorCheck("peer", .failed, "pairing with '\(peer.name)' is locked out after wrong codes",
                               fix: "wait for the lockout to end, then 'peerctl pair' and type the code with care")
        }
        if peer.paired { return DoctorCheck("peer", .ok, "'\(peer.name)' is paired") }
        if let last = failures.last {
            return DoctorCheck("peer", .warning, "'\(peer.name)' is not paired; the last attempt failed (\(last.rawValue))", fix: "peerctl pair \(peer.name)")
        }
        return DoctorCheck("peer", .ok, "'\(peer.name)' is not paired (sessions need an accepted invitation)")
    }

    /// A bridge that snoops multicast with no querier forgets group members
    /// after a few minutes, and mDNS goes quiet.
    package static func snooping(_ bridge: String, snooping: Bool, querier: Bool) -> DoctorCheck {
        guard snooping, !querier else { return DoctorCheck("multicast", .ok, "bridge \(bridge): \(snooping ? "snooping with a querier" : "no multicast snooping")") }
        return DoctorCheck("multicast", .warning, "bridge \(bridge) snoops multicast but has no querier",
                           detail: "its group table ages out, and mDNS between its ports stops after a few minutes",
                           fix: "echo 1 > /sys/class/net/\(bridge)/bridge/multicast_querier (or turn snooping off)", discovery: true)
    }

    /// Whether any other host answered mDNS on an interface (`otherHosts`
    /// counts the services of other hosts a browse saw there).
    package static func answers(_ interface: String, otherHosts: Int) -> DoctorCheck {
        guard otherHosts == 0 else {
            return DoctorCheck("multicast", .ok, "mDNS answers on \(interface): \(otherHosts) service\(otherHosts == 1 ? "" : "s") of other hosts")
        }
        return DoctorCheck("multicast", .warning, "no other host answers mDNS on \(interface)",
                           detail: "alone on the link, or multicast is filtered (Wi-Fi client isolation, a switch, a firewall)",
                           fix: "check the AP's client isolation and multicast settings; 'peerctl add HOST' works without mDNS", discovery: true)
    }
}
