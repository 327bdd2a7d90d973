import PeerCore
import PeerProtocol

extension ControlError {
    /// The default app's request toward a peer whose session was accepted
    /// for an app alone (protocol.md §10): nothing was sent.
    static func appOnly(_ peer: String, app: AppName?) -> ControlError {
        ControlError(.notConnected, "the session with '\(peer)' was accepted for app '\(app?.text ?? "?")' alone and carries no default-app traffic; invite it for the default app first (peerctl invite \(peer))")
    }
}
