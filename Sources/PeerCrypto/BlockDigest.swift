import PeerCore

/// A running hash of a transfer's blocks (docs/protocol.md §8): BLAKE2b-256
/// (``Blake2b``) or SHA-256 (``Sha256``), as the session's
/// ``BlockHashKind`` says. Not `Sendable`: each lives behind its owner's
/// lock (``PartialFile``, ``SendHashing``).
package protocol BlockDigest: AnyObject {
    /// Adds bytes.
    func update(_ bytes: UnsafeRawBufferPointer)
    /// The digest of everything added since the last one; then starts over.
    func finish() -> [UInt8]
}

extension BlockDigest {
    /// Adds bytes.
    package func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }
}

extension BlockHashKind {
    /// A fresh running hash of this kind.
    package func digest() -> any BlockDigest {
        switch self {
        case .blake2b: Blake2b()
        case .sha256: Sha256()
        }
    }

    /// The hash of `bytes` (a block's, or a file's of its block hashes).
    package func hash(_ bytes: [UInt8]) -> [UInt8] {
        let digest = digest()
        digest.update(bytes)
        return digest.finish()
    }
}
