import PeerCore
import PeerProtocol

/// What names a stream with one peer: the app it belongs to and its name
/// (issue 23, point 4). Two apps may each have a stream called "sync"
/// with the same peer; each meets only its own app's pipe.
struct StreamKey: Hashable {
    /// The app (the default app: `pipe` without `app`, a plain `streamOpen`).
    let app: AppName
    /// The name both sides' `pipe` gave.
    let name: String

    /// How logs and errors say it: the name, with its app when it has one.
    var shown: String { app.isDefault ? "'\(name)'" : "'\(name)' of app '\(app.text)'" }
}
