import PeerProtocol

/// `peerctl --json peer`: the peer's row as `peers` lists it, with the
/// connected peer's paths beside its keys (`datagrams`, `bulk`: which way
/// its file and stream bytes go, and why; issue 44), so a script learns
/// what `peerctl peer` says in words. The row's own keys are unchanged;
/// the two are added only when the daemon gave them.
struct PeerRowJSON: Encodable {
    /// The `peer` call's result.
    let result: PeerResult

    private enum Keys: String, CodingKey { case datagrams, bulk }

    /// The row's keys, then the paths'.
    func encode(to encoder: any Encoder) throws {
        try result.peer.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(result.datagrams, forKey: .datagrams)
        try container.encodeIfPresent(result.bulk, forKey: .bulk)
    }
}
