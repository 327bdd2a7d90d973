import FoundationEssentials
import PeerCore
import PeerProtocol

/// What a message channel is joined to: a peer, and the app whose
/// messages it carries (at most one channel per pair).
struct ChannelKey: Hashable {
    /// The peer.
    let peer: UUID
    /// The app (the default app's channel carries plain `data`).
    let app: AppName
}
