package import FoundationEssentials
package import PeerProtocol

/// The control router's checks and choices that need no daemon state, as
/// pure functions: what a request's parameters mean, and where a `send`
/// goes (docs/control-protocol.md).
package enum ControlRequestRules {
    /// An `invite`'s context and timeout.
    package struct Invitation: Sendable, Equatable {
        /// The context, as sent to the peer.
        package var context: [UInt8]
        /// How long the peer's user has to decide.
        package var timeout: TimeInterval
    }

    /// Where a `send` goes.
    package enum SendPath: Sendable, Equatable {
        /// Into the peer's durable queue (it is paired).
        case queue(peerID: String)
        /// Onto the peer's session.
        case session
        /// Nowhere: this error.
        case refused(ControlError)
    }

    /// The default invitation timeout, in seconds.
    package static let defaultInviteTimeout: TimeInterval = 30

    /// The selector a method that names a peer needs (`params.peer`).
    package static func peerSelector(_ method: ControlMethod, _ params: ControlParams) -> Result<String, ControlError> {
        guard let selector = params.peer else {
            let hint = method == .peer ? ": a UUID, a unique UUID prefix or a unique name" : ""
            return .failure(ControlError(.invalidParams, "'\(method.rawValue)' needs params.peer\(hint)"))
        }
        return .success(selector)
    }

    /// The most peers one group `send` names.
    package static let maxGroupPeers = 256

    /// The peers a group `send` goes to, each with its selector: `peers`
    /// resolved one by one (one that names no peer, or several, is that
    /// entry's error, not the request's), or with `all` every connected
    /// peer, by name. Both, either with `peer`, none, or over
    /// ``maxGroupPeers`` selectors is `invalidParams`.
    package static func groupTargets(_ params: ControlParams, peers: [PeerSnapshot], connected: (UUID) -> Bool)
        -> Result<[(selector: String, peer: Result<PeerSnapshot, ControlError>)], ControlError> {
        if params.peer != nil || (params.peers != nil && params.all != nil) {
            return .failure(ControlError(.invalidParams, "'send' takes one of params.peer, params.peers and params.all"))
        }
        if params.all == true {
            return .success(peers.filter { connected($0.id) }.sorted { $0.name < $1.name }.map { ($0.id.uuidString.lowercased(), .success($0)) })
        }
        guard let selectors = params.peers, !selectors.isEmpty else {
            return .failure(ControlError(.invalidParams, "'send' needs params.peer, a non-empty params.peers, or params.all: true"))
        }
        guard selectors.count <= maxGroupPeers else {
            return .failure(ControlError(.invalidParams, "'send' names \(selectors.count) peers; at most \(maxGroupPeers) at once"))
        }
        return .success(selectors.map { ($0, PeerSelector.select($0, from: peers)) })
    }

    /// The pairing id `pairAccept` and `pairReject` need, lowercased.
    package static func pairingKey(_ method: ControlMethod, _ params: ControlParams) -> Result<String, ControlError> {
        guard let key = params.pairing?.lowercased(), !key.isEmpty else {
            return .failure(ControlError(.invalidParams, "'\(method.rawValue)' needs params.pairing"))
        }
        return .success(key)
    }

    /// An `invite`'s context (at most ``WireCodec/maxContext`` bytes) and
    /// timeout (1 to 300 s, 30 by default).
    package static func invitation(_ params: ControlParams) -> Result<Invitation, ControlError> {
        var context = Array((params.context ?? "").utf8)
        if let encoded = params.contextData {
            guard params.context == nil else { return .failure(ControlError(.invalidParams, "give context or contextData, not both")) }
            guard let bytes = Data(base64Encoded: encoded) else { return .failure(ControlError(.invalidParams, "contextData is not base64")) }
            context = Array(bytes)
        }
        guard context.count <= WireCodec.maxContext else {
            return .failure(ControlError(.invalidParams, "context is \(context.count) bytes; at most \(WireCodec.maxContext)"))
        }
        let timeout = params.timeout ?? defaultInviteTimeout
        guard timeout >= 1, timeout <= 300 else { return .failure(ControlError(.invalidParams, "timeout must be 1 to 300 seconds")) }
        return .success(Invitation(context: context, timeout: timeout))
    }

    /// Where an `add` dials: `params.address`, a numeric IPv4 or IPv6
    /// address (with `%IFACE` for a link-local one; `[ADDRESS]:PORT` is
    /// read too), and `params.port` (``PeerAddress/defaultPort`` when
    /// absent). Names are the client's to resolve: the daemon never waits
    /// on DNS.
    package static func addressEndpoint(_ params: ControlParams) -> Result<Endpoint, ControlError> {
        guard let text = params.address, !text.isEmpty else {
            return .failure(ControlError(.invalidParams, "'add' needs params.address: a numeric IPv4 or IPv6 address"))
        }
        var address: PeerAddress
        do { address = try PeerAddress.parse(text) } catch {
            return .failure(ControlError(.invalidParams, error.description))
        }
        if let port = params.port {
            guard (1...65535).contains(port) else { return .failure(ControlError(.invalidParams, "port must be 1 to 65535")) }
            guard address.port == nil || address.port == UInt16(port) else {
                return .failure(ControlError(.invalidParams, "'\(text)' names port \(address.port!) but params.port is \(port)"))
            }
            address.port = UInt16(port)
        }
        guard let endpoint = address.endpoint else {
            return .failure(ControlError(.invalidParams, "'\(address.host)' is not a numeric address; resolve host names first (peerctl add does)"))
        }
        return .success(endpoint)
    }

    /// A `send`'s message: `params.data` in base64, at most `maxMessage` bytes.
    package static func message(_ params: ControlParams, maxMessage: Int) -> Result<[UInt8], ControlError> {
        guard let text = params.data, let data = Data(base64Encoded: text) else {
            return .failure(ControlError(.invalidParams, "'send' needs params.data: the message in base64"))
        }
        guard data.count <= maxMessage else {
            return .failure(ControlError(.invalidParams, "the message is \(data.count) bytes; the limit is \(maxMessage)"))
        }
        return .success(Array(data))
    }

    /// Where a `send` to `peer` goes: with `queue`, a paired peer's queue,
    /// connected or not; otherwise (and for an unpaired peer that is
    /// connected) its session.
    package static func sendPath(queue: Bool?, peer: PeerSnapshot, paired: Bool, connected: Bool) -> SendPath {
        guard queue == true else { return .session }
        if let peerID = peer.peerId, paired { return .queue(peerID: peerID) }
        if connected { return .session }
        return .refused(ControlError(.notConnected, "'\(peer.name)' is not connected; '\(peer.name)' is not paired, so nothing can be queued for it"))
    }
}
