import FoundationEssentials
import PeerProtocol

/// Datagrams: MultipeerConnectivity's `.unreliable` mode
/// (docs/control-protocol.md, "Datagrams").
extension PeerClient {
    /// Sends `data` to `peer` as MPC's `send(_:toPeers:with:)` does:
    /// `.reliable` on the session (a `send`), `.unreliable` as a datagram.
    /// Returns whether it went: a reliable message is always queued (or
    /// throws); a datagram may be dropped at once (`wouldBlock`).
    @discardableResult
    public func send(_ data: [UInt8], to peer: UUID, mode: PeerSendMode, app: String? = nil) async throws(PeerError) -> Bool {
        switch mode {
        case .reliable:
            _ = try await send(data, to: peer, app: app)
            return true
        case .unreliable:
            return try await datagram(data, to: peer, app: app).sent
        }
    }

    /// One datagram to `peer`, sent now or dropped now. A peer whose release
    /// has no datagrams throws `unsupported`; a path UDP does not cross,
    /// `unreachable`, unless `fallback` carries it in the session then
    /// (dropped rather than queued behind much; its result says `via`).
    public func datagram(_ data: [UInt8], to peer: UUID, app: String? = nil, fallback: Bool = false) async throws(PeerError) -> DatagramSendResult {
        var params = ControlParams(peer: peer.uuidString.lowercased(), data: Data(data).base64EncodedString())
        params.app = app
        params.fallback = fallback ? true : nil
        return try await requests.call(.datagram, params)
    }

    /// A socket of datagrams of `app` (or the default app's) both ways, on
    /// a connection of its own: see ``PeerDatagrams``.
    public func datagrams(app: String? = nil) async throws(PeerError) -> PeerDatagrams {
        let (mine, answer) = try await longRequest(.datagrams, peer: nil, app: app, label: "datagrams", seqPacket: true) { $0 }
        return PeerDatagrams(socket: mine, answer: answer)
    }
}
