/// What the notification server said on its own (org.freedesktop.Notifications signals).
enum BusSignal: Sendable {
    /// `ActionInvoked`: the user pressed a button (or the notification: `default`).
    case actionInvoked(id: UInt32, action: String)
    /// `NotificationClosed`: it is gone (expired, dismissed, closed by a call).
    case closed(id: UInt32)
}
