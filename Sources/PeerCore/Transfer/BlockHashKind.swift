/// Which hash a transfer's block and file hashes use (docs/protocol.md §8,
/// "Blocks and hashes"): BLAKE2b-256, as every release, or SHA-256 on a
/// session where both hellos name `sha256-blocks` (issue 44: with the
/// CPU's SHA-256 instructions it costs a sender about half as much). The
/// hash is the session's, not the offer's: a transfer resumed on a later
/// session uses that session's, and a receiver's record of another kind
/// starts its file over (``ResumePoint``).
package enum BlockHashKind: Sendable, Equatable, CaseIterable {
    /// BLAKE2b with a 32-byte digest and no key.
    case blake2b
    /// SHA-256.
    case sha256

    /// The kind on a session where this side said `ours` and the peer
    /// `theirs` (nil: nothing yet, or nothing at all).
    package static func on(ours: PeerHello, theirs: PeerHello?) -> BlockHashKind {
        ours.speaks(.sha256Blocks) && theirs?.speaks(.sha256Blocks) == true ? .sha256 : .blake2b
    }
}
