import FoundationEssentials

/// What the agent's shell does, as ``NotificationPlanner`` decides it:
/// show or close a notification, or answer the daemon for the user.
package enum AgentAction: Equatable, Sendable {
    /// Shows (or, with `replacing`, updates) a notification; the shell
    /// reports the server's id back (``NotificationPlanner/shown(_:id:)``).
    case notify(NotificationRequest)
    /// Closes the server's notification `id` (`CloseNotification`).
    case close(UInt32)
    /// Accepts the invitation with this id (`accept`).
    case acceptInvitation(String)
    /// Declines it (`decline`).
    case declineInvitation(String)
    /// Accepts the incoming transfer with this id (`acceptTransfer`).
    case acceptTransfer(String)
    /// Declines it (`declineTransfer`).
    case declineTransfer(String)
    /// Opens a folder in the user's file manager (`xdg-open`).
    case openFolder(String)
    /// Opens the desktop app on this transfer or pairing (`peerd-gtk
    /// --show ID`); where there is no app, the shell says so in its log.
    case openApp(String)
    /// Moves the files of the peer's folder (`folder`, of the download
    /// directory, which only the service reads) into a folder of this
    /// user's, then tells the planner (``NotificationPlanner/moved(transfer:peer:name:into:files:bytes:failed:byRule:now:)``).
    /// `byRule`: a transfer the peer's Quick Save rule accepted landed,
    /// and the rule's folder is the target if the rule is this user's
    /// (else nothing is done); otherwise the user pressed "Save to
    /// Downloads", and the target is their download folder.
    case moveFiles(transfer: String, peer: UUID, name: String, folder: String, byRule: Bool)
}
