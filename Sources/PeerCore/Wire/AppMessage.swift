/// The messages of feature `apps` (issue 23; docs/protocol.md §10): the
/// app list a daemon confirms over the session, the numbers it gives app
/// names, app data, and the per-app flow control that lets one app's full
/// inbox hold back that app's traffic alone.
///
/// Numbers are the *data sender's*: `open` binds one of the sender's
/// numbers to a name, and `busy`, `ready` and `retry` name an app by the
/// number its data comes under, whichever side sends them.
package import PeerProtocol
package enum AppMessage: Equatable, Sendable {
    /// The apps registered on the sender's host, sorted (it sends a new one
    /// whenever they change).
    case list([String])
    /// From here on, the sender's app data under `number` is for app `name`.
    case open(number: UInt16, name: String)
    /// Application data for the app the sender bound to `number`; `more` is
    /// set on every fragment but the last. Counted like `data` (an
    /// application message, acknowledged by `ack`).
    case data(number: UInt16, more: Bool, bytes: [UInt8])
    /// From the receiver: app message `message` of this session (numbered
    /// as `ack` counts) and every later one under `number` were refused,
    /// with words; the sender keeps them and sends nothing more under
    /// `number` until `ready`.
    case busy(number: UInt16, message: UInt64, text: String)
    /// From the receiver: the app under `number` has room again.
    case ready(number: UInt16)
    /// From the sender, after `ready`: what follows under `number` is new
    /// or sent again, and the receiver takes it again.
    case retry(number: UInt16)
    /// The sender's app `name` invites the receiver's (MPC's invitation):
    /// how long it waits, and context bytes (at most 4096).
    case invite(name: String, timeoutMilliseconds: UInt32, context: [UInt8])
    /// The receiver's app `name` accepts the sender's invitation (or both
    /// invited each other).
    case accept(name: String)
    /// The app `name` declines the invitation, with a reason and words.
    case decline(name: String, reason: AppEndReason, text: String)
    /// The app `name`'s state with the receiver ends (it left, or an
    /// invitation timed out), with a reason and words.
    case leave(name: String, reason: AppEndReason, text: String)
    /// Opens one of the sender's flows for the app it bound to `number`:
    /// `opening` is an `offer` part (every part of an app's offer comes
    /// so) or a `streamOpen`, and the flow is that app's from then on. Its
    /// other messages (chunks, answers, credit, stream bytes) go as they
    /// do for the default app, by flow.
    case flow(number: UInt16, opening: BulkMessage)

    /// Whether `message` may open an app's flow (``flow(number:opening:)``).
    package static func opensFlow(_ message: BulkMessage) -> Bool {
        switch message {
        case .offer, .streamOpen: true
        default: false
        }
    }
}
