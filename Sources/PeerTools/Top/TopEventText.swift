import PeerProtocol

/// One event in a few words, for the detail pane's latest events.
package enum TopEventText {
    /// `event` described without its peer (the pane is the peer's).
    package static func describe(_ event: ControlEvent) -> String {
        let text: String
        switch event.type {
        case .peerFound: text = "found at \(event.peer?.endpoints.map(\.hostPort).joined(separator: ", ") ?? "")"
        case .peerUpdated: text = "updated"
        case .peerLost: text = "lost"
        case .peerRemoved: text = "evicted from the table"
        case .stateChanged:
            text = (event.peer?.state.rawValue ?? "state") + (event.reason.map { " (\($0.rawValue))" } ?? "") + (event.detail.map { ": \($0)" } ?? "")
        case .inviteFailed: text = "invitation failed" + (event.reason.map { " (\($0.rawValue))" } ?? "") + (event.detail.map { ": \($0)" } ?? "")
        case .invitation: text = "invites us" + (event.invitation.map { $0.context.isEmpty ? "" : ": \($0.context)" } ?? "")
        case .message: text = "message, \(event.message?.size ?? 0) bytes"
        case .stored: text = "message kept in the inbox, \(event.stored?.size ?? 0) bytes"
        case .identityMismatch: text = "identity mismatch at \(event.mismatch?.address ?? "?")"
        case .pairingRequest: text = "asks to pair"
        case .pairingCode: text = "pairing code \(event.pairing?.code ?? "?")"
        case .paired: text = "paired"
        case .pairingFailed: text = "pairing failed (\(event.pairingFailure?.rawValue ?? "?"))"
        case .unpaired: text = "unpaired"
        case .transferOffered, .transferProgress, .transferCompleted, .transferFailed:
            let t = event.transfer
            text = "transfer \(t?.id.prefix(8) ?? "") \(t?.direction.rawValue ?? "") \(t?.state.rawValue ?? "")" + (t?.reason.map { " (\($0.rawValue))" } ?? "")
        case .delivered: text = "messages through \(event.delivery?.through ?? 0) delivered"
        case .appStateChanged: text = "app \(event.app?.app ?? "?") \(event.app?.state.rawValue ?? "")" + (event.app?.reason.map { " (\($0.rawValue))" } ?? "")
        case .undelivered: text = "app \(event.delivery?.app ?? "?") refused from message \(event.delivery?.from ?? 0): \(event.delivery?.text ?? "")"
        case .error: text = event.error?.message ?? "error"
        case .channelOpened: text = "channel open"
        }
        return TerminalText.escape(text)
    }
}
