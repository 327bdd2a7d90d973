/// One notification to show (org.freedesktop.Notifications `Notify`),
/// decided by ``NotificationPlanner``: the shell only sends it.
package struct NotificationRequest: Equatable, Sendable {
    /// What it stands for.
    package var key: NotificationKey
    /// The server's id of the notification it replaces, or nil for a new one.
    package var replacing: UInt32?
    /// The summary: plain text (the specification allows no markup there).
    package var summary: String
    /// The body, escaped for the server when it reads markup (``NotificationText``).
    package var body: String
    /// The buttons, in order: (action key, label). Empty where the server has no actions.
    package var actions: [NotificationButton]
    /// Progress in percent (the `value` hint), for a transfer under way.
    package var progress: Int?
    /// Whether it stays until answered (the `resident` hint and no expiry).
    package var waitsForAnswer: Bool

    /// A request.
    package init(key: NotificationKey, replacing: UInt32? = nil, summary: String, body: String, actions: [NotificationButton] = [],
                 progress: Int? = nil, waitsForAnswer: Bool = false) {
        (self.key, self.replacing, self.summary, self.body) = (key, replacing, summary, body)
        (self.actions, self.progress, self.waitsForAnswer) = (actions, progress, waitsForAnswer)
    }
}

/// A notification's button: the key the server reports back in
/// `ActionInvoked`, and the label it shows.
package struct NotificationButton: Equatable, Sendable {
    /// The action key (`accept`, `decline`, `show`, `open-folder`, `enter-code`).
    package var key: String
    /// What the button says.
    package var label: String

    /// A button.
    package init(_ key: String, _ label: String) { (self.key, self.label) = (key, label) }
}
