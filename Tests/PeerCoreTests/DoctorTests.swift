import FoundationEssentials
@testable import PeerCore
@testable import PeerTools
import XCTest
import PeerProtocol

/// `peerctl doctor`'s parsers and decisions (issue 14, part 2), as tables.
final class DoctorParserTests: XCTestCase {
    func testStatusRawValuesArePinned() {
        XCTAssertEqual(DoctorStatus.allCases.map(\.rawValue), ["ok", "warning", "failed", "skipped"])
        XCTAssertEqual(DoctorStatus.allCases.map(\.mark), ["[✓]", "[!]", "[✗]", "[-]"])
    }

    func testAvahiConfig() {
        let config = AvahiServerConfig(parsing: """
        [server]
        # allow-interfaces=nothing
        allow-interfaces = eth0, wlan0
        deny-interfaces=docker0
        use-ipv6=no
        [publish]
        deny-interfaces=eth0
        """)
        XCTAssertEqual(config.allow, ["eth0", "wlan0"])
        XCTAssertEqual(config.deny, ["docker0"], "other sections do not count")
        XCTAssertFalse(config.ipv6)
        XCTAssertNil(config.excludes("eth0"))
        XCTAssertEqual(config.excludes("docker0"), "deny-interfaces lists docker0")
        XCTAssertEqual(config.excludes("eth1"), "allow-interfaces is eth0,wlan0, without eth1")
        XCTAssertNil(AvahiServerConfig(parsing: "").excludes("eth1"))
    }

    func testSocketTableFindsPort5353() {
        let text = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
          1: 00000000:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000   105        0 31337 2 0000000000000000 0
          2: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101        0 4242 2 0000000000000000 0
        """
        XCTAssertEqual(SocketTable.inodes(boundTo: 5353, in: text), [31337])
        XCTAssertEqual(SocketTable.inodes(boundTo: 53, in: text), [4242])
    }

    func testRoutes() {
        let route = """
        Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
        eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
        wg0\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0
        """
        XCTAssertEqual(RouteFacts.defaultInterface(procNetRoute: route), "wg0")
        XCTAssertTrue(RouteFacts.isVPN("wg0"))
        XCTAssertTrue(RouteFacts.isVPN("tun1"))
        XCTAssertFalse(RouteFacts.isVPN("eth0"))
        XCTAssertEqual(RouteFacts.route(ipRouteGet: "10.1.2.2 via 10.1.1.1 dev eth0 src 10.1.1.2 uid 0\n    cache"),
                       RouteFacts.Route(gateway: "10.1.1.1", device: "eth0", local: false))
        XCTAssertEqual(RouteFacts.route(ipRouteGet: "169.254.3.12 dev eth0 src 169.254.3.11 uid 0"),
                       RouteFacts.Route(gateway: nil, device: "eth0", local: false))
        XCTAssertEqual(RouteFacts.route(ipRouteGet: "local 10.0.0.1 dev lo table local src 10.0.0.1")?.local, true)
        XCTAssertNil(RouteFacts.route(ipRouteGet: ""))
    }

    func testNftablesTable() {
        func ruleset(_ policy: String, _ rules: [String]) -> String {
            "table inet filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy \(policy);\n"
                + rules.map { "\t\t\($0)\n" }.joined() + "\t}\n\tchain output {\n\t\ttype filter hook output priority filter; policy drop;\n\t}\n}\n"
        }
        let rows: [(String, [String], FirewallVerdict, FirewallVerdict)] = [
            ("accept", [], .accepted("chain input: policy accept"), .accepted("chain input: policy accept")),
            ("accept", ["udp dport 5353 drop"], .blocked("chain input: udp dport 5353 drop"), .accepted("chain input: policy accept")),
            ("drop", ["ct state established,related accept", "udp dport mdns accept", "tcp dport { 22, 7717 } accept"],
             .accepted("chain input: udp dport mdns accept"), .accepted("chain input: tcp dport { 22, 7717 } accept")),
            ("drop", ["ct state established,related accept", "tcp dport 22 accept"],
             .blocked("chain input: policy drop, and no rule accepts udp port 5353"), .blocked("chain input: policy drop, and no rule accepts tcp port 7717")),
            ("accept", ["ip saddr 10.0.0.0/8 drop", "counter drop"], .blocked("chain input: counter drop"), .blocked("chain input: counter drop")),
            ("accept", ["meta l4proto udp drop"], .blocked("chain input: meta l4proto udp drop"), .accepted("chain input: policy accept")),
            ("drop", ["tcp dport 7000-8000 accept", "udp dport 5353 accept"], .accepted("chain input: udp dport 5353 accept"), .accepted("chain input: tcp dport 7000-8000 accept")),
        ]
        for (policy, rules, udp, tcp) in rows {
            let parsed = NftablesRuleset(parsing: ruleset(policy, rules))
            XCTAssertEqual(parsed.verdict(proto: "udp", port: 5353), udp, "\(policy) \(rules)")
            XCTAssertEqual(parsed.verdict(proto: "tcp", port: 7717), tcp, "\(policy) \(rules)")
        }
        XCTAssertEqual(NftablesRuleset(parsing: "").verdict(proto: "udp", port: 5353), .unfiltered)
    }

    func testAvahiBrowseRecords() {
        let text = """
        +;eth0;IPv4;host2;_peerd._tcp;local
        =;eth0;IPv4;host2;_peerd._tcp;local;lab-h2.local;169.254.3.12;7717;"txtvers=1" "id=abc"
        =;eth0;IPv6;semi\\059colon;_peerd._tcp;local;lab-h2.local;fe80::1;7717;
        """
        let records = AvahiBrowseRecord.parse(text)
        XCTAssertEqual(records.count, 2)
        XCTAssertEqual(records[0].txt, ["txtvers": "1", "id": "abc"])
        XCTAssertEqual(records[0].port, 7717)
        XCTAssertEqual(records[1].name, "semi;colon")
    }
}

final class DoctorRuleTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 5_000)

    func testInterfaceTable() {
        let rows: [(Bool, Bool, [String], AvahiServerConfig?, DoctorStatus, String)] = [
            (true, true, ["10.0.0.2"], nil, .ok, "eth0 is up, multicast, at 10.0.0.2"),
            (false, true, ["10.0.0.2"], nil, .failed, "eth0 is down"),
            (true, false, ["10.0.0.2"], nil, .failed, "eth0 lacks the MULTICAST flag: mDNS cannot use it"),
            (true, true, [], nil, .failed, "eth0 has no address"),
            (true, true, ["10.0.0.2"], AvahiServerConfig(parsing: "[server]\ndeny-interfaces=eth0"), .failed, "avahi-daemon leaves eth0 out: deny-interfaces lists eth0"),
        ]
        for (up, multicast, addresses, config, status, title) in rows {
            let check = DoctorRules.interface("eth0", up: up, multicast: multicast, addresses: addresses, avahi: config)
            XCTAssertEqual(check.status, status, title)
            XCTAssertEqual(check.title, title)
            XCTAssertEqual(check.fix == nil, status == .ok, "a fix goes with every failure")
        }
    }

    func testRespondersAndRoutes() {
        XCTAssertEqual(DoctorRules.responders(["avahi-daemon"]).status, .ok)
        XCTAssertEqual(DoctorRules.responders([], unseenSockets: 2).status, .skipped, "not root: the holders cannot be named")
        let resolved = DoctorRules.responders(["avahi-daemon", "systemd-resolve"])
        XCTAssertEqual(resolved.status, .warning)
        XCTAssertEqual(resolved.fix, "set MulticastDNS=no in /etc/systemd/resolved.conf, then systemctl restart systemd-resolved")
        XCTAssertEqual(DoctorRules.defaultRoute("wg0").status, .warning)
        XCTAssertEqual(DoctorRules.defaultRoute("eth0").status, .ok)
    }

    func testFirewallChecksNameTheRule() {
        let checks = DoctorRules.firewall("nftables", mdns: .blocked("chain input: udp dport 5353 drop"), session: .unfiltered, port: 7717)
        XCTAssertEqual(checks.map(\.status), [.failed, .ok])
        XCTAssertEqual(checks[0].title, "nftables drops mDNS (UDP 5353)")
        XCTAssertEqual(checks[0].detail, "chain input: udp dport 5353 drop")
        XCTAssertTrue(checks[0].discovery)
    }

    func testPeerChecks() {
        let endpoint = Endpoint(interface: "eth0", family: .ipv4, address: "10.1.2.2", port: 7717)
        XCTAssertEqual(DoctorPeerRules.subnet(endpoint, route: .init(gateway: "10.1.1.1", device: "eth0", local: false)).status, .warning)
        XCTAssertEqual(DoctorPeerRules.subnet(endpoint, route: .init(gateway: "10.1.1.1", device: "eth0", local: false)).fix,
                       "use 'peerctl add 10.1.2.2:7717' to reach it by address")
        XCTAssertEqual(DoctorPeerRules.subnet(endpoint, route: .init(gateway: nil, device: "eth0", local: false)).status, .ok)
        XCTAssertEqual(DoctorPeerRules.subnet(endpoint, route: nil).status, .failed)
        let probes: [(DoctorPeerRules.PortProbe, DoctorStatus, String)] = [
            (.open, .ok, "10.1.2.2:7717 answers"),
            (.refused, .failed, "10.1.2.2:7717 refuses connections: nothing listens there"),
            (.timedOut, .failed, "10.1.2.2:7717 does not answer: filtered"),
        ]
        for (probe, status, title) in probes {
            let check = DoctorPeerRules.port(endpoint, probe)
            XCTAssertEqual(check.status, status)
            XCTAssertEqual(check.title, title)
        }
        var peer = PeerSnapshot(id: UUID(), peerId: "abc", name: "nas", state: .notConnected, endpoints: [endpoint],
                                info: ["txtvers": "1"], lastSeen: now.addingTimeInterval(-120), lost: true)
        XCTAssertEqual(DoctorPeerRules.seen(peer, now: now).title, "'nas' is lost: last seen 2m ago")
        XCTAssertEqual(DoctorPeerRules.version(peer).status, .ok)
        peer.info["txtvers"] = "2"
        XCTAssertEqual(DoctorPeerRules.version(peer).status, .failed)
        XCTAssertEqual(DoctorPeerRules.release(peer).status, .skipped, "no session has said its release")
        peer.release = "0.1.0"
        peer.features = []
        let old = DoctorPeerRules.release(peer)
        XCTAssertEqual(old.status, .warning)
        XCTAssertEqual(old.title, "'nas' runs peerd 0.1.0, which cannot receive files or open streams")
        XCTAssertEqual(old.fix, "upgrade peerd on 'nas'")
        peer.release = "0.2.0"
        peer.features = ["accept-name", "files", "streams"]
        XCTAssertEqual(DoctorPeerRules.release(peer).status, .ok)
        XCTAssertEqual(DoctorPeerRules.app("chat", peer).title, "'nas' runs peerd 0.2.0, which cannot carry app traffic")
        peer.features = ["accept-name", "files", "streams", "apps"]
        XCTAssertEqual(DoctorPeerRules.app("chat", peer).title, "'nas' does not advertise app 'chat'")
        XCTAssertEqual(DoctorPeerRules.app("chat", peer).detail, "it advertises no app")
        peer.apps = ["chat": AdvertisedApp(info: [:])]
        XCTAssertEqual(DoctorPeerRules.app("chat", peer).status, .ok)
        XCTAssertEqual(DoctorPeerRules.app("chat", peer).detail, "heard over mDNS only: no session has confirmed it yet")
        XCTAssertEqual(DoctorPeerRules.app("clip", peer).detail, "it advertises chat")
        XCTAssertEqual(DoctorPeerRules.appState("chat", peer, state: .connected).status, .ok)
        XCTAssertEqual(DoctorPeerRules.appState("chat", peer, state: .notConnected).fix, "peerctl --app chat invite nas (a client of 'chat' there answers, or its --app-auto-accept)")
        let mismatch = IdentityMismatchInfo(peer: peer.id, expected: "abc", actual: "def", address: "10.1.2.2:7717")
        XCTAssertEqual(DoctorPeerRules.identity(peer, mismatches: [mismatch], trusted: nil).status, .failed)
        XCTAssertEqual(DoctorPeerRules.identity(peer, mismatches: [], trusted: nil).status, .ok)
        XCTAssertEqual(DoctorPeerRules.pairing(peer, failures: [.wrongCode, .lockedOut]).status, .failed)
        XCTAssertEqual(DoctorPeerRules.snooping("br0", snooping: true, querier: false).status, .warning)
        XCTAssertEqual(DoctorPeerRules.answers("eth0", otherHosts: 0).status, .warning)
    }

    /// Wide-area discovery (issue 46): a peer found in DNS needs no shared
    /// link, and one whose record outlives it is explained as such; the
    /// daemon's wide-area state is one line.
    func testWideAreaChecks() {
        let endpoint = Endpoint(interface: "", family: .ipv4, address: "10.2.2.2", port: 7717)
        var peer = PeerSnapshot(id: UUID(), peerId: "abc", name: "lab", state: .notConnected, endpoints: [endpoint],
                                info: [:], lastSeen: now, lost: false)
        peer.sources = ["dns:peers.example"]
        XCTAssertEqual(DoctorPeerRules.dnsDomains(of: peer), ["peers.example"])
        XCTAssertEqual(DoctorPeerRules.seen(peer, now: now).title, "'lab' is seen now on DNS (peers.example)")
        XCTAssertEqual(DoctorPeerRules.subnet(endpoint, route: .init(gateway: "10.1.1.1", device: "eth0", local: false), viaDNS: true).status, .ok)
        let stale = DoctorPeerRules.port(endpoint, .refused, dnsDomains: ["peers.example"])
        XCTAssertEqual(stale.status, .failed)
        XCTAssertEqual(stale.title, "10.2.2.2:7717 is in DNS (peers.example) but does not answer: 10.2.2.2:7717 refuses connections: nothing listens there")
        XCTAssertTrue(stale.detail?.contains("lease") == true)
        XCTAssertEqual(DoctorPeerRules.port(endpoint, .open, dnsDomains: ["peers.example"]).status, .ok)

        XCTAssertNil(DoctorRules.wideArea(nil))
        func status(_ wide: WideAreaStatus) -> DaemonStatus {
            var s = DaemonStatus(version: "0.4.0", pid: 1, uptime: 1, peerId: "a", requestedName: "h", name: "h", serviceType: "_peerd._tcp", port: 1,
                                 interfaces: [], avahi: .running, avahiMessage: nil, publication: .established, peers: 0, lostPeers: 0,
                                 maxPeers: 1, peersRejected: 0, eventSeq: 0, socket: "/s")
            s.wideArea = wide
            return s
        }
        let base = WideAreaStatus(domain: "peers.example", server: "192.0.2.53:53", zone: "peers.example", serverError: nil, publication: "published",
                                  name: "h", lastUpdate: "applied", lastUpdateAt: now, peers: 2, followed: 2, browseDomains: ["peers.example"])
        XCTAssertEqual(DoctorRules.wideArea(status(base))?.title, "'h' is published in peers.example at 192.0.2.53:53; 2 peers found in peers.example")
        var refused = base
        refused.publication = "refused"
        refused.lastUpdate = "refused: NOTAUTH"
        XCTAssertEqual(DoctorRules.wideArea(status(refused))?.status, .failed)
        XCTAssertEqual(DoctorRules.wideArea(status(refused))?.detail, "refused: NOTAUTH")
        var lost = base
        lost.server = nil
        lost.serverError = "no SOA"
        XCTAssertEqual(DoctorRules.wideArea(status(lost))?.title, "no DNS server for peers.example")
        var browsing = base
        browsing.publication = "off"
        XCTAssertEqual(DoctorRules.wideArea(status(browsing))?.status, .ok)
    }

    func testTheSummaryPointsToAddWhenDiscoveryFails() {
        let ok = DoctorReport(checks: [DoctorCheck("daemons", .ok, "fine")])
        XCTAssertEqual(ok.summary, "all 1 checks passed")
        XCTAssertEqual(ok.exitStatus, 0)
        let broken = DoctorReport(checks: [DoctorCheck("daemons", .ok, "fine"),
                                           DoctorCheck("interfaces", .failed, "eth0 lacks the MULTICAST flag", fix: "ip link set eth0 multicast on", discovery: true)])
        XCTAssertEqual(broken.exitStatus, 1)
        XCTAssertTrue(broken.summary.hasPrefix("1 failed, 0 warnings, 2 checks; discovery is impaired"))
        XCTAssertTrue(broken.summary.contains("peerctl add HOST[:PORT]"))
        let text = broken.render()
        XCTAssertTrue(text.contains("  [✗] eth0 lacks the MULTICAST flag\n      fix: ip link set eth0 multicast on"), text)
    }
}
