/// How ``PeerClient/send(_:to:mode:app:)`` sends, in MultipeerConnectivity's
/// words (`MCSessionSendDataMode`).
public enum PeerSendMode: Sendable, Equatable {
    /// On the session: in order, acknowledged, never lost while the
    /// session lasts (a `send`).
    case reliable
    /// A datagram: sent now or dropped now, never queued, retried or
    /// ordered, and never behind a transfer; at most 1,200 bytes
    /// (docs/control-protocol.md, "Datagrams").
    case unreliable
}
