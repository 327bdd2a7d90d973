import Dispatch
import PeerCore
import PeerProtocol
import Synchronization

/// The thread that talks to the site's DNS server for wide-area DNS-SD
/// (issue 46). ldns's calls block, so they run here, one at a time on a
/// serial queue, never on the main actor; each finished lookup is yielded,
/// in order, into one stream that the ``WideAreaCoordinator`` drains: the
/// shape of the Avahi bridge. The DNS client lives only in the queue's
/// jobs (held in a `Mutex` the serial queue never contends).
package final class WideAreaLink: Sendable {
    /// Where the server comes from.
    package enum Server: Sendable, Equatable {
        /// `--dns-server ADDRESS[:PORT]`.
        case given(address: String, port: UInt16)
        /// Found from the domain's `_dns-update._udp` SRV, or else its SOA's primary.
        case discovered
    }

    /// Which client a lookup goes through.
    package enum Via: Sendable, Equatable {
        /// The domain's own server (found or given): authoritative, fresh.
        case server
        /// The host's resolvers (resolv.conf): for the browse domains the
        /// search domains name, whose servers peerd does not know.
        case system
    }

    /// The clients, owned by the queue's jobs.
    private struct Clients {
        var server: DNSClient?
        var system: DNSClient?
        func pick(_ via: Via) -> DNSClient? { via == .server ? server : system }
    }

    /// The most browse domains taken from the search domains.
    package static let maxBrowseDomains = 8

    private let queue = DispatchQueue(label: "peerd.wide-area", qos: .utility)
    private let client = Mutex(Clients())
    private let continuation: AsyncStream<WideAreaBridgeEvent>.Continuation
    /// Lookups waiting or running: the coordinator asks no more than
    /// ``maxQueued`` at a time.
    private let queued = Atomic<Int>(0)
    /// The most jobs queued at once.
    package static let maxQueued = 64
    /// Set at stop: lookups still queued are dropped unrun, so a server
    /// that does not answer cannot hold the stop for their timeouts; the
    /// removal (an update) still goes.
    private let lookupsCancelled = Atomic<Bool>(false)

    /// A link whose reports go to `continuation`.
    package init(continuation: AsyncStream<WideAreaBridgeEvent>.Continuation) {
        self.continuation = continuation
    }

    /// Whether another job may be queued now.
    package var hasRoom: Bool { queued.load(ordering: .relaxed) < Self.maxQueued }

    /// Finds the server and the zone of `domain` (the client's first job),
    /// and the browse domains the host's search domains name (RFC 6763
    /// §11: `b._dns-sd._udp.SEARCH`'s pointers).
    package func connect(domain: DNSName, server: Server) {
        submit { clients in
            do throws(DNSError) {
                let system = try? DNSClient(systemResolverWithTimeout: 2)
                let made: DNSClient
                switch server {
                case .given(let address, let port):
                    made = try DNSClient(address: address, port: port)
                case .discovered:
                    guard let system else { throw DNSError(.noAnswer, step: "find the server of \(domain)", detail: "no /etc/resolv.conf to ask") }
                    made = try Self.discover(domain, with: system)
                }
                let zone = try Self.zone(of: domain, asking: made)
                clients = Clients(server: made, system: system)
                let others = system.map { Self.browseDomains(with: $0) }?.filter { !$0.matches(domain) } ?? []
                return .ready(server: made.server, zone: zone, browseDomains: Array(others.prefix(Self.maxBrowseDomains)))
            } catch {
                return .unreachable(error.description)
            }
        }
    }

    /// Asks the serial of the zone at or above `name` (the SOA in the
    /// answer, or in the authority section for a name below a zone's apex).
    package func querySerial(_ domain: DNSName, zone name: DNSName, via: Via) {
        submit { clients in
            guard let client = clients.pick(via), let answer = try? client.query(name, .soa) else { return .serial(domain, nil) }
            for record in answer.answer + answer.authority { if case .soa(_, let serial) = record.data { return .serial(domain, serial) } }
            return .serial(domain, nil)
        }
    }

    /// Lists the instances of `service` that the pointers at `owner` (the
    /// service type, or an app's subtype) name: at most `limit` of them.
    package func list(_ domain: DNSName, _ owner: DNSName, of service: DNSName, limit: Int, via: Via) {
        submit { clients in
            guard let client = clients.pick(via), let answer = try? client.query(owner, .ptr), answer.rcode == 0 || answer.rcode == 3 else {
                return .listed(domain, nil)
            }
            var names: [String] = []
            for record in answer.answer {
                guard case .ptr(let target) = record.data, target.labels.count == service.labels.count + 1,
                      target.hasSuffix(service), let label = target.firstLabel, !names.contains(label) else { continue }
                names.append(label)
                if names.count >= limit { break }
            }
            return .listed(domain, names)
        }
    }

    /// Looks up instance `name` of `service`: its SRV, TXT and the target's addresses.
    package func resolve(_ domain: DNSName, _ name: String, of service: DNSName, via: Via) {
        submit { clients in
            guard let client = clients.pick(via), let instance = DNSName([name])?.appending(service) else { return .resolved(domain, name, nil) }
            return .resolved(domain, name, Self.lookUp(instance, with: client))
        }
    }

    /// Who holds `instance`: the `id` of its TXT, if it has records.
    package func checkName(_ instance: DNSName) {
        submit { clients in
            guard let client = clients.server else { return .nameChecked(.unknown("no server")) }
            do throws(DNSError) {
                let answer = try client.query(instance, .txt)
                let txt = answer.answer.compactMap { record -> [[UInt8]]? in if case .txt(let strings) = record.data { strings } else { nil } }.first
                guard answer.rcode == 0, let txt else { return .nameChecked(.free) }
                let id = txt.lazy.compactMap { String(validating: $0, as: UTF8.self) }.first { $0.hasPrefix("id=") }.map { String($0.dropFirst(3)) }
                return .nameChecked(.taken(id))
            } catch {
                return .nameChecked(.unknown(error.description))
            }
        }
    }

    /// Sends `update`, signed with `key` (even after ``cancelLookups()``).
    package func send(_ update: DNSUpdate, key: TSIGKey?) {
        submit(essential: true) { clients in
            guard let client = clients.server else { return .updated(.failed("no server")) }
            do throws(DNSError) {
                try client.update(update, key: key)
                return .updated(.applied)
            } catch {
                return .updated(error.isRefusal ? .refused(error.detail) : .failed(error.description))
            }
        }
    }

    /// Drops the lookups still queued, and any asked later (the stop).
    package func cancelLookups() {
        lookupsCancelled.store(true, ordering: .relaxed)
    }

    /// Waits until every job queued so far has run (shutdown: the removal
    /// goes out before the process ends).
    package func drain() {
        queue.sync {}
    }

    /// Ends the stream: the coordinator's pump returns.
    package func finish() {
        continuation.finish()
    }

    private func submit(essential: Bool = false, _ job: @escaping @Sendable (inout Clients) -> WideAreaBridgeEvent) {
        queued.add(1, ordering: .relaxed)
        queue.async {
            guard essential || !self.lookupsCancelled.load(ordering: .relaxed) else {
                self.queued.subtract(1, ordering: .relaxed)
                return
            }
            let event = self.client.withLock { job(&$0) }
            self.queued.subtract(1, ordering: .relaxed)
            self.continuation.yield(event)
        }
    }

    /// The server from the host's resolvers: `_dns-update._udp.DOMAIN`'s
    /// SRV (RFC 6763 §11's way to name the update server), else the
    /// primary of the domain's SOA, on port 53.
    private static func discover(_ domain: DNSName, with system: DNSClient) throws(DNSError) -> DNSClient {
        var host: DNSName?
        var port: UInt16 = 53
        if let name = DNSName(["_dns-update", "_udp"])?.appending(domain), let answer = try? system.query(name, .srv) {
            for record in answer.answer { if case .srv(_, _, let p, let target) = record.data { host = target; port = p; break } }
        }
        if host == nil {
            let answer = try system.query(domain, .soa)
            for record in answer.answer + answer.authority { if case .soa(let primary, _) = record.data { host = primary; break } }
        }
        guard let host else { throw DNSError(.noAnswer, step: "find the server of \(domain)", detail: "no _dns-update._udp SRV and no SOA") }
        for kind in [DNSRecord.Kind.a, .aaaa] {
            let answer = try? system.query(host, kind)
            for record in answer?.answer ?? [] {
                switch record.data {
                case .a(let address), .aaaa(let address): return try DNSClient(address: address, port: port)
                default: continue
                }
            }
        }
        throw DNSError(.noAnswer, step: "find the server of \(domain)", detail: "\(host) has no address")
    }

    /// The domains `b._dns-sd._udp` names under each of the host's search
    /// domains, in order, once each.
    private static func browseDomains(with system: DNSClient) -> [DNSName] {
        var found: [DNSName] = []
        for search in system.searchDomains {
            guard let name = DNSName(["b", "_dns-sd", "_udp"])?.appending(search), let answer = try? system.query(name, .ptr) else { continue }
            for record in answer.answer {
                // `.local` is mDNS's, which Avahi browses.
                guard case .ptr(let target) = record.data, target.labels.last.map({ String(decoding: $0, as: UTF8.self).lowercased() }) != "local",
                      !found.contains(where: { $0.matches(target) }) else { continue }
                found.append(target)
            }
        }
        return found
    }

    /// The zone that holds `domain`: the owner of the SOA in the answer
    /// (the domain is the zone) or the authority section (a name below it).
    private static func zone(of domain: DNSName, asking client: DNSClient) throws(DNSError) -> DNSName {
        let answer = try client.query(domain, .soa)
        for record in answer.answer + answer.authority { if case .soa = record.data, domain.hasSuffix(record.owner) { return record.owner } }
        throw DNSError(.noAnswer, step: "find the zone of \(domain) at \(client.server)", detail: "no SOA (\(DNSError.rcodeName(answer.rcode)))")
    }

    private static func lookUp(_ instance: DNSName, with client: DNSClient) -> WideAreaInstance? {
        guard let srv = try? client.query(instance, .srv) else { return nil }
        guard let found = srv.answer.first(where: { $0.owner.matches(instance) && $0.kind == .srv }),
              case .srv(_, _, let port, let target) = found.data else { return nil }
        var ttl = found.ttl
        var txt: [[UInt8]] = []
        if let answer = try? client.query(instance, .txt), let record = answer.answer.first(where: { $0.kind == .txt }), case .txt(let strings) = record.data {
            txt = strings
            ttl = min(ttl, record.ttl)
        }
        var addresses: [WideAreaPublication.HostAddress] = []
        for (kind, family) in [(DNSRecord.Kind.a, AddressFamily.ipv4), (.aaaa, .ipv6)] {
            // The answer's additional section may carry them already.
            var records = srv.additional.filter { $0.owner.matches(target) && $0.kind == kind }
            if records.isEmpty, let answer = try? client.query(target, kind) { records = answer.answer.filter { $0.kind == kind } }
            for record in records.prefix(WideAreaInstance.maxAddressesPerFamily) {
                switch record.data {
                case .a(let text), .aaaa(let text):
                    addresses.append(.init(family: family, text: text))
                    ttl = min(ttl, record.ttl)
                default: continue
                }
            }
        }
        return WideAreaInstance(port: port, target: target, txt: txt, addresses: addresses, ttl: ttl)
    }
}
