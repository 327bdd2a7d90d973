internal import FoundationEssentials
internal import PeerProtocol

/// The identity registry's row for one peer: everything it knows, keyed by
/// the services that contribute endpoints.
struct PeerRecord: Sendable {
    let id: UUID
    let key: PeerKey
    var name: String
    var services: [ServiceKey: ResolvedService] = [:]
    var info: [String: String] = [:]
    var lastSeen: Date
    var lost = false
    /// Where a session last reached the peer (issue 21, point 3).
    var learnedAddress: String?

    var endpoints: [Endpoint] {
        Set(services.values.map(\.endpoint)).sorted {
            ($0.interface, $0.family.rawValue, $0.address, $0.port) < ($1.interface, $1.family.rawValue, $1.address, $1.port)
        }
    }

    /// `mdns`, `dns:DOMAIN` (a wide-area key), or
    /// `added` when no service names the peer but a session did.
    var sources: [String]? {
        var found: [String] = []
        if services.keys.contains(where: { !$0.isWideArea }) { found.append("mdns") }
        found += Set(services.keys.filter(\.isWideArea).map { "dns:" + $0.domain }).sorted()
        if found.isEmpty, learnedAddress != nil { found.append("added") }
        return found.isEmpty ? nil : found
    }

    /// The row as the actor hands it out. Session state is not the
    /// registry's: the main actor's ``PeerDirectory`` lays it over.
    var snapshot: PeerSnapshot {
        let peerID: String? = if case .peerID(let value) = key { value } else { nil }
        var snapshot = PeerSnapshot(id: id, peerId: peerID, name: name, state: .notConnected, endpoints: endpoints,
                                    info: info, lastSeen: lastSeen, lost: lost)
        snapshot.learnedAddress = learnedAddress
        snapshot.sources = sources
        return snapshot
    }
}
