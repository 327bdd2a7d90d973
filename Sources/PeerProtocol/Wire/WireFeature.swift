/// A named, optional addition to wire version 1 (docs/protocol.md §9,
/// "Evolution"). Each side announces the features it speaks in its
/// handshake payload (``PeerHello``); a side sends a peer only what the
/// peer announced, and treats what the peer sends without having
/// announced it as a protocol error. The names are the wire values,
/// pinned by `WireValuesTests`: a new feature is a new name, never a
/// changed one. The names live here, with the control protocol, because
/// the tools speak of them too (`doctor`); which message needs which
/// feature is the daemon's rule (PeerCore, `WireFeature+Needed.swift`).
package enum WireFeature: String, CaseIterable, Codable, Sendable {
    /// `accept` carries the invitee's name (a peer without it gets an
    /// empty `accept` body).
    case acceptName = "accept-name"
    /// File transfers: message types 0x10 to 0x17 (protocol.md §8).
    case files = "files"
    /// Byte streams: message types 0x18 to 0x1B (protocol.md §8).
    case streams = "streams"
    /// Apps: message types 0x20 to 0x2A (protocol.md §10).
    case apps = "apps"
    /// Datagrams beside the session: message type 0x30 and the UDP path
    /// it opens (protocol.md §11).
    case datagrams = "datagrams"
    /// Exactly-once queued messages: message type 0x32 (`queued`) tags
    /// the next application message with its place in the sender's
    /// durable queue (protocol.md §5, "Exactly once").
    case once = "once"
    /// A second connection for file and stream bytes beside the session
    /// (message type 0x33, `laneOffer`, and the lane it opens;
    /// protocol.md §12), so messages never wait behind bulk bytes.
    case bulkLane = "bulk-lane"
    /// Block and file hashes (`block`, `fileEnd`; protocol.md §8) are
    /// SHA-256, not BLAKE2b-256, on a session where both announce it. A
    /// daemon announces it only on a CPU with SHA-256 instructions, where
    /// SHA-256 costs about half of BLAKE2b (issue 44).
    case sha256Blocks = "sha256-blocks"

    /// The release that added it.
    package var addedIn: String {
        switch self {
        case .acceptName, .files, .streams: "0.2.0"
        case .apps, .datagrams, .once: "0.3.0"
        case .bulkLane, .sha256Blocks: "0.4.0"
        }
    }

    /// What a peer with it can do, for errors and `doctor`: "… which
    /// cannot receive files".
    package var ability: String {
        switch self {
        case .acceptName: "send its name with accept"
        case .files: "receive files"
        case .streams: "open streams"
        case .apps: "carry app traffic"
        case .datagrams: "take datagrams"
        case .once: "keep queued messages exactly once"
        case .bulkLane: "move files and streams on a lane of their own"
        case .sha256Blocks: "hash file blocks with SHA-256"
        }
    }
}
