/// One session's per-app flow control (issue 23, point 4; docs/protocol.md
/// §10), both ways, without I/O: an app whose inbox here is full refuses
/// that app's messages alone, and the session, the default app and every
/// other app go on.
///
/// As the receiver: the first message of app A that cannot be taken is
/// refused with an `appBusy` naming its number, and so is every later
/// message of A (the peer sent them before it heard), until the peer's
/// `appRetry` marks where what it sends again begins. Refused messages
/// still count for `ack`: the session's numbering never has a gap. When A
/// has room again, one `appReady` goes.
///
/// As the sender: a peer's `appBusy` holds A (nothing more of A goes), and
/// its `appReady` lets A go again after one `appRetry`.
package import PeerProtocol
package struct AppFlow: Sendable, Equatable {
    /// Receiving: the apps refused until the peer's `appRetry`, and
    /// whether `appReady` went for each.
    private var refusing: [AppName: Bool] = [:]
    /// Sending: the apps the peer holds, with its words.
    private var held: [AppName: String] = [:]

    /// No app held either way.
    package init() {}

    // MARK: Receiving

    /// Whether a message of `app` that arrived is taken (false: it is
    /// refused, and the peer was told already).
    package func takes(_ app: AppName) -> Bool { refusing[app] == nil }

    /// A message of `app` could not be taken: true when the peer must be
    /// told (`appBusy`), which is the first time only.
    package mutating func refused(_ app: AppName) -> Bool {
        guard refusing[app] == nil else { return false }
        refusing[app] = false
        return true
    }

    /// `app` has room again here: true when `appReady` must go (it is
    /// refusing, and has not said so yet).
    package mutating func room(_ app: AppName) -> Bool {
        guard refusing[app] == false else { return false }
        refusing[app] = true
        return true
    }

    /// The peer's `appRetry`: its messages of `app` are taken again.
    /// False when nothing was refused (a protocol error: a retry answers a
    /// ready).
    package mutating func peerRetried(_ app: AppName) -> Bool {
        guard refusing[app] == true else { return false }
        refusing[app] = nil
        return true
    }

    /// The apps refused now, for ``room(_:)`` when room appears.
    package var refusedApps: [AppName] { refusing.keys.sorted() }

    // MARK: Sending

    /// The peer's `appBusy` of `app`: nothing more of it goes.
    package mutating func peerBusy(_ app: AppName, _ text: String) {
        held[app] = text
    }

    /// The peer's `appReady` of `app`: true when `appRetry` must go now
    /// (it was held; it is not any more).
    package mutating func peerReady(_ app: AppName) -> Bool {
        held.removeValue(forKey: app) != nil
    }

    /// The peer's words when it holds `app`, or nil when `app` may go.
    package func heldBy(_ app: AppName) -> String? { held[app] }
}
