/// Why a datagram was dropped (docs/control-protocol.md, "Datagrams").
/// The raw values are the control protocol's, pinned by tests.
public enum DatagramDrop: String, Codable, Sendable, CaseIterable {
    /// Sending: the UDP socket's buffer was full. Sent now or never.
    case wouldBlock = "wouldBlock"
    /// Sending: the kernel refused it (no route, say).
    case sendFailed = "sendFailed"
    /// Sending: the peer's `datagramPath` has not come yet.
    case noPath = "noPath"
    /// Receiving: a counter seen already (a replay, or the network's duplicate).
    case duplicate = "duplicate"
    /// Receiving: a counter older than the replay window.
    case tooOld = "tooOld"
    /// Receiving: it did not authenticate under the session's key.
    case authFailed = "authFailed"
    /// Receiving: it opened, but its body is not one (a bad kind or app).
    case malformed = "malformed"
    /// Receiving: more than the per-peer rate in one second.
    case rate = "rate"
    /// Receiving: no client of its app takes datagrams here, or the app
    /// is not connected with the peer.
    case noReceiver = "noReceiver"
    /// Receiving: a client's socket was full; that client lost it.
    case slowReceiver = "slowReceiver"
}
