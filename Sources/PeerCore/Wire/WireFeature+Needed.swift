package import PeerProtocol

/// Which message needs which feature: the session's rule for what a peer
/// may send and be sent (docs/protocol.md §9).
extension WireFeature {
    /// The features one of which a peer must have announced before it may
    /// send `message` (empty: any peer may). `credit` and `cancel` serve
    /// files and streams alike.
    package static func needed(for message: WireMessage) -> Set<WireFeature> {
        switch message {
        case .accept(let name): name.isEmpty ? [] : [.acceptName]
        case .invite(_, _, _, _, let app): app.isEmpty ? [] : [.apps]
        case .bulk(let bulk): needed(for: bulk)
        case .app: [.apps]
        // The feature that registered the type says (the session checks).
        case .feature: []
        case .queued: [.once]
        case .decline, .data, .ping, .pong, .close, .pairRequest, .pairCommit, .pairNonce, .pairReveal, .pairConfirm,
             .pairReject, .unpair, .ack:
            []
        }
    }

    /// The features one of which `message` needs (see ``needed(for:)-swift.type.method``).
    package static func needed(for message: BulkMessage) -> Set<WireFeature> {
        switch message {
        case .offer, .answer, .chunk, .block, .fileEnd, .transferDone: [.files]
        case .streamOpen, .streamData, .streamEnd, .streamReset: [.streams]
        case .credit, .cancel: [.files, .streams]
        }
    }
}
