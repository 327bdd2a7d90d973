import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// `peerctl doctor [PEER]` (issue 14, part 2): gathers facts in order
/// (the daemons, the interfaces, the firewall, our own announcement, the
/// peer, multicast health), has ``DoctorRules`` and ``DoctorPeerRules``
/// judge them, and prints the report (or `--json`). Runs without the
/// daemon too: that is its first check.
struct PeerctlDoctor {
    /// The control socket.
    let socketPath: String
    /// `--json`: the report as one object.
    let json: Bool
    /// `--app NAME`: also check that the peer runs that app.
    var app: String?

    /// Runs every check (and those of the peer `selector` names); the exit status.
    func run(peer selector: String?) -> Int32 {
        var checks: [DoctorCheck] = []
        var status: DaemonStatus?
        var client: ControlClient?
        var connectError: String?
        do {
            let opened = try ControlClient(path: socketPath)
            opened.responseTimeout = .seconds(5)
            status = try opened.call(.status)
            client = opened
        } catch {
            connectError = error.description
        }

        // 1. The daemons.
        checks.append(DoctorRules.daemon(status, error: connectError, socket: socketPath))
        let bus = DoctorProbes.run(["dbus-send", "--system", "--print-reply", "--reply-timeout=2000", "--dest=org.freedesktop.Avahi", "/",
                                    "org.freedesktop.Avahi.Server.GetVersionString"], timeout: 4)
        let version = bus.flatMap { $0.output.split(separator: "\"").dropFirst().first.map(String.init) }
        checks.append(DoctorRules.avahi(status, bus: bus.map { $0.status == 0 }, busDetail: bus == nil ? "dbus-send is not installed"
                                            : bus!.status == 0 ? version.map { "D-Bus: \($0)" } : "org.freedesktop.Avahi does not answer on the system bus"))
        let holders = DoctorProbes.udpHolders(port: 5353)
        checks.append(DoctorRules.responders(holders.names, unseenSockets: holders.names.isEmpty ? holders.sockets : 0))

        // 2. Interfaces.
        let avahiConfig = DoctorProbes.read(DoctorProbes.avahiConfigPath()).map(AvahiServerConfig.init(parsing:))
        let configured = Set(status?.interfaces ?? [])
        let interfaces = DoctorProbes.interfaces().filter { configured.isEmpty ? ($0.up || !$0.addresses.isEmpty) : configured.contains($0.name) }
        if interfaces.isEmpty {
            checks.append(DoctorCheck("interfaces", .failed, "no usable network interface", fix: "connect this host to a network", discovery: true))
        }
        for facts in interfaces {
            checks.append(DoctorRules.interface(facts.name, up: facts.up, multicast: facts.multicast, addresses: facts.addresses, avahi: avahiConfig))
        }
        checks.append(DoctorRules.defaultRoute(DoctorProbes.read("/proc/net/route").flatMap { RouteFacts.defaultInterface(procNetRoute: $0) }))

        // 3. Firewall.
        let port = status?.port ?? PeerAddress.defaultPort
        if let nft = DoctorProbes.run(["nft", "list", "ruleset"]) {
            if nft.status == 0 {
                let rules = NftablesRuleset(parsing: nft.output)
                checks += DoctorRules.firewall("nftables", mdns: rules.verdict(proto: "udp", port: 5353), session: rules.verdict(proto: "tcp", port: port), port: port)
            } else {
                checks.append(DoctorCheck("firewall", .skipped, "nftables ruleset not readable (run doctor as root to check it)"))
            }
        } else {
            checks.append(DoctorCheck("firewall", .skipped, "nft is not installed: nftables not checked"))
        }
        if let ufw = DoctorProbes.run(["ufw", "status"]), ufw.output.contains("Status: active") {
            let open = ufw.output.contains("5353/udp") && ufw.output.contains("ALLOW")
            checks.append(DoctorCheck("firewall", open ? .ok : .failed, open ? "ufw allows 5353/udp" : "ufw is active and does not allow 5353/udp",
                                      fix: "ufw allow 5353/udp && ufw allow \(port)/tcp", discovery: !open))
        }
        if let firewalld = DoctorProbes.run(["firewall-cmd", "--list-services"]), firewalld.status == 0 {
            let open = firewalld.output.split(separator: " ").contains { $0.hasPrefix("mdns") }
            checks.append(DoctorCheck("firewall", open ? .ok : .failed, open ? "firewalld allows mdns" : "firewalld's zone does not allow mdns",
                                      fix: "firewall-cmd --permanent --add-service=mdns --add-port=\(port)/tcp && firewall-cmd --reload", discovery: !open))
        }

        // 4. Our own announcement.
        let browse = status.flatMap { DoctorProbes.run(["avahi-browse", "-p", "-r", "-t", $0.serviceType], timeout: 6) }
        let records = browse.map { AvahiBrowseRecord.parse($0.output) }
        checks.append(DoctorRules.announcement(status, records: records))

        // 4b. Wide-area discovery through the site's DNS.
        if let wide = DoctorRules.wideArea(status) { checks.append(wide) }

        // 5. The peer.
        if let selector {
            checks += peerChecks(selector, client: client)
        }

        // 6. Multicast health.
        for facts in interfaces where facts.up {
            let bridge = "/sys/class/net/\(facts.name)/bridge"
            if let snooping = DoctorProbes.read("\(bridge)/multicast_snooping") {
                checks.append(DoctorPeerRules.snooping(facts.name, snooping: snooping.hasPrefix("1"),
                                                       querier: DoctorProbes.read("\(bridge)/multicast_querier")?.hasPrefix("1") ?? false))
            }
        }
        if let all = DoctorProbes.run(["avahi-browse", "-a", "-p", "-t"], timeout: 6), all.status == 0 {
            for facts in interfaces where facts.up && facts.multicast {
                let others = Set(all.output.split(whereSeparator: \.isNewline).compactMap { line -> String? in
                    let fields = line.split(separator: ";", omittingEmptySubsequences: false)
                    guard fields.count >= 5, fields[0] == "+", fields[1] == facts.name, fields[3] != (status?.name ?? "")[...] else { return nil }
                    return String(fields[3]) + "." + String(fields[4])
                })
                checks.append(DoctorPeerRules.answers(facts.name, otherHosts: others.count))
            }
        }

        let report = DoctorReport(checks: checks, peer: selector)
        emit(json ? PeerctlRenderer.json(report) : report.render())
        return report.exitStatus
    }

    private func peerChecks(_ selector: String, client: ControlClient?) -> [DoctorCheck] {
        guard let client else { return [DoctorCheck("peer", .skipped, "'\(selector)': peerd is not answering")] }
        let peer: PeerSnapshot
        let datagrams: DatagramInfo?
        let bulk: BulkPathInfo?
        do {
            let result = try client.call(.peer, params: ControlParams(peer: selector))
            (peer, datagrams, bulk) = (result.peer, result.datagrams, result.bulk)
        } catch {
            return [DoctorCheck("peer", .failed, "no peer '\(selector)' has been seen", detail: error.description,
                                fix: "if it runs peerd on another network: peerctl add HOST[:PORT]; else see the checks above", discovery: true)]
        }
        var checks = [DoctorPeerRules.seen(peer, now: Date())]
        let trusted = (try? client.call(.paired))?.peers.first { $0.uuid == peer.id || $0.peerId == peer.peerId }
        var endpoints = peer.endpoints
        if endpoints.isEmpty, let remembered = trusted?.addresses { endpoints = remembered }
        if endpoints.isEmpty, let session = peer.session, let address = try? PeerAddress.parse(session), let endpoint = address.endpoint {
            endpoints = [endpoint]
        }
        let target = endpoints.first { $0.family == .ipv4 } ?? endpoints.first
        if let target {
            if target.family == .ipv6 && target.address.lowercased().hasPrefix("fe80") {
                checks.append(DoctorCheck("peer", .ok, "\(target.address) is link-local on \(target.interface): on our link"))
            } else {
                let route = DoctorProbes.run(["ip", "route", "get", target.address]).flatMap { RouteFacts.route(ipRouteGet: $0.output) }
                checks.append(DoctorPeerRules.subnet(target, route: route, viaDNS: !DoctorPeerRules.dnsDomains(of: peer).isEmpty))
            }
            checks.append(DoctorPeerRules.port(target, DoctorProbes.connect(to: target), dnsDomains: DoctorPeerRules.dnsDomains(of: peer)))
        } else {
            checks.append(DoctorCheck("peer", .failed, "no address is known for '\(peer.name)'", fix: "peerctl add HOST[:PORT] with its address", discovery: true))
        }
        checks.append(DoctorPeerRules.version(peer))
        checks.append(DoctorPeerRules.release(peer))
        if peer.features != nil || datagrams != nil {
            checks.append(DoctorPeerRules.datagrams(datagrams, peer: peer.name, ownPort: (try? client.call(.status))?.datagrams?.port))
        }
        if let bulk { checks.append(DoctorPeerRules.bulk(bulk, peer: peer.name)) }
        if let app {
            checks.append(DoctorPeerRules.app(app, peer))
            // `peers` in the app shows each row's state as the app's.
            var params = ControlParams()
            params.app = app
            let row = (try? client.call(.peers, params: params))?.peers.first { $0.id == peer.id }
            if peer.apps?[app] != nil { checks.append(DoctorPeerRules.appState(app, peer, state: row?.state ?? .notConnected)) }
        }
        // What the daemon still holds of its past with the peer.
        var mismatches: [IdentityMismatchInfo] = []
        var failures: [PairingFailure] = []
        if let history = try? ControlClient(path: socketPath),
           let subscribed = try? history.call(.subscribe, params: ControlParams(since: 0)) {
            for _ in 0..<subscribed.replayed {
                guard let event = try? history.nextEvent(deadline: ContinuousClock.now + .seconds(2)).event else { break }
                if let mismatch = event.mismatch, mismatch.peer == peer.id { mismatches.append(mismatch) }
                if event.type == .pairingFailed, event.pairing?.peer == peer.id || event.peer?.id == peer.id, let failure = event.pairingFailure {
                    failures.append(failure)
                }
            }
        }
        checks.append(DoctorPeerRules.identity(peer, mismatches: mismatches, trusted: trusted))
        checks.append(DoctorPeerRules.pairing(peer, failures: failures))
        return checks
    }
}
