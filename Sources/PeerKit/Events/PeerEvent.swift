import PeerProtocol

/// What ``PeerEvents`` yields: an event, or word that some were lost.
public enum PeerEvent: Sendable, Equatable {
    /// An event of the daemon's (docs/control-protocol.md, "Events").
    case event(ControlEvent)
    /// Events were lost (the daemon restarted, or its history ran out):
    /// fetch what you show again, such as ``PeerClient/peers(app:)``.
    case gap(EventGap)
}
