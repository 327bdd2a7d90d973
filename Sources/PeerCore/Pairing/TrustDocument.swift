/// The trust store's file contents: versioned, one record per paired peer.
internal import PeerProtocol
package struct TrustDocument: Codable, Sendable, Equatable {
    /// The format version this build writes and reads.
    package static let currentVersion = 1

    /// The format version.
    package var version: Int
    /// Paired peers.
    package var peers: [TrustFileRecord]

    /// A document with these peers.
    package init(peers: [TrustFileRecord]) {
        version = Self.currentVersion
        self.peers = peers
    }

    /// The record for a peer id.
    package func record(peerID: String) -> TrustFileRecord? { peers.first { $0.peerId == peerID } }

    /// The record for a display name.
    package func record(named name: String) -> TrustFileRecord? { peers.first { $0.name == name } }

    /// This document with `record` added, or replacing the one for its peer id.
    package func upserting(_ record: TrustFileRecord) -> TrustDocument {
        var next = self
        next.peers.removeAll { $0.peerId == record.peerId }
        next.peers.append(record)
        return next
    }

    /// This document without `peerID`, or nil when it is not there.
    package func removing(peerID: String) -> TrustDocument? {
        guard record(peerID: peerID) != nil else { return nil }
        var next = self
        next.peers.removeAll { $0.peerId == peerID }
        return next
    }
}
