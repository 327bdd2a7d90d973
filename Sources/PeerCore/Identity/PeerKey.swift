/// What the identity registry keys a peer by.
///
/// A peerd advertiser is keyed by the `id` in its TXT record, so every
/// interface, family and address it is seen at merges into one peer. A foreign
/// advertiser without an `id` is keyed by its service instance name.
package enum PeerKey: Hashable, Sendable, CustomStringConvertible {
    /// The advertised peer id (fingerprint of the peer's identity key).
    case peerID(String)
    /// The instance name of an advertiser that sent no `id`.
    case instanceName(String)

    /// A readable form for logs.
    package var description: String {
        switch self {
        case .peerID(let id): return "id:\(id)"
        case .instanceName(let name): return "name:\(name)"
        }
    }
}
