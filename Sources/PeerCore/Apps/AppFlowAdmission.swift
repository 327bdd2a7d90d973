/// Whether an app's flow that a peer opens (an `offer` or `streamOpen` in
/// `appFlow`, docs/protocol.md §10) may go on to its desk here: as for an
/// app's messages, the app must be kept on this host (a client holds it,
/// or it is declared) and connected with that peer. Pure: the answer is
/// the refusal to send back, or nil to go on.
package import PeerProtocol
package enum AppFlowAdmission {
    /// The refusal of `opening` for `app`, or nil when it may go on.
    /// `kept`: the app is registered or declared here; `connected`: its
    /// state with the peer is `connected`.
    package static func refusal(of opening: BulkMessage, app: AppName, kept: Bool, connected: Bool) -> BulkMessage? {
        guard !app.isDefault else { return nil }
        let why: String
        if !kept {
            why = "no client of app '\(app.text)' is here, and it is not declared"
        } else if !connected {
            why = "app '\(app.text)' is not connected with you here: invite it first"
        } else {
            return nil
        }
        switch opening {
        case .offer(let flow, _, _, _, _): return .cancel(flow, reason: .declined, text: why)
        case .streamOpen(let flow, _): return .streamReset(flow, reason: .unknownName, text: why)
        default: return nil
        }
    }
}
