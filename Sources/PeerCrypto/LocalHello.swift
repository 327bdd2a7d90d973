import PeerCore

/// What this daemon says of itself in every handshake (docs/protocol.md
/// §3 and §9): this release's features, with `sha256-blocks` only on a CPU
/// with SHA-256 instructions (``Sha256/accelerated``), asked once.
package enum LocalHello {
    /// This daemon's hello.
    package static let ours = PeerHello.ours(fastSHA256: Sha256.accelerated)
}
