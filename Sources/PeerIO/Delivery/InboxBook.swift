import FoundationEssentials
import PeerCore
import PeerProtocol

/// The inboxes of this host (issue 23, point 4): the default app's
/// (`<state>/inbox`, as every release has it) and one per app
/// (`<state>/inbox.NAME`), each an ``InboxDelivery`` of its own, so one
/// app's messages are never handed to, counted against or taken by
/// another's clients. An app's inbox is opened when its first message
/// arrives or a client of it takes, and at start-up when its file exists.
///
/// A message for an app this host does not keep (no client holds it and it
/// is not declared) is refused for that app alone.
@MainActor
package final class InboxBook {
    /// The default app's inbox.
    package let main: InboxDelivery
    private var apps: [AppName: InboxDelivery] = [:]
    private let share: AppInboxShare
    private let make: @MainActor (AppName, Int) -> InboxDelivery

    /// A book over `main`; `make` opens an app's inbox of a given limit
    /// (its room and audience are the daemon's), and `existing` names the
    /// apps whose inbox files are on disk now.
    package init(main: InboxDelivery, existing: [AppName], make: @escaping @MainActor (AppName, Int) -> InboxDelivery) {
        self.main = main
        self.make = make
        share = AppInboxShare(limit: main.limit)
        for app in existing { apps[app] = make(app, share.perApp) }
    }

    /// The apps whose inbox files are under `stateDirectory` (read at
    /// start-up; a file whose name is no app's is left alone).
    package nonisolated static func existingApps(stateDirectory: String) -> [AppName] {
        // Either layout's name: `inbox2.NAME`, or an earlier `inbox.NAME` to carry.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: stateDirectory)) ?? []).compactMap { name -> AppName? in
            guard !name.contains(".tmp.") else { return nil }
            for prefix in ["inbox2.", "inbox."] where name.hasPrefix(prefix) {
                return try? AppName(String(name.dropFirst(prefix.count)))
            }
            return nil
        }
        return Set(names).sorted()
    }

    /// `app`'s inbox, opened if need be.
    package func inbox(_ app: AppName) -> InboxDelivery {
        if app.isDefault { return main }
        if let open = apps[app] { return open }
        let opened = make(app, share.perApp)
        apps[app] = opened
        return opened
    }

    /// Every inbox open now, the default app's first.
    package var all: [InboxDelivery] { [main] + apps.keys.sorted().compactMap { apps[$0] } }

    /// A whole message for `app` arrived from `peerID` (see
    /// ``InboxDelivery/arrived(_:from:now:stored:)``). An app's is refused
    /// when the apps' inboxes are full together.
    package func arrived(_ data: [UInt8], from peerID: String, app: AppName, now: Date, tag: QueueTag? = nil,
                        stored: @escaping @MainActor (String?) -> Void) -> InboxOutcome {
        if !app.isDefault, let refusal = share.refusal(size: data.count, appsBytes: apps.values.reduce(0) { $0 + $1.bytes }) {
            return .refused(refusal)
        }
        return inbox(app).arrived(data, from: peerID, now: now, tag: tag, stored: stored)
    }

    /// Whether queued messages from `peerID` are kept exactly once
    /// (``InboxDelivery/keepsOnce(from:)``; asked of the default app's
    /// inbox, so asking opens no app's).
    package func keepsOnce(from peerID: String) -> Bool {
        main.keepsOnce(from: peerID)
    }

    /// Bytes were written to `connection` (every inbox's takers may go on).
    package func written(_ connection: ControlConnection) {
        for inbox in all { inbox.written(connection) }
    }

    /// `connection` is gone: what it had not got whole waits in each inbox.
    package func closed(_ connection: ControlConnection) {
        for inbox in all { inbox.closed(connection) }
    }

    /// Waits for every inbox's disk work (at shutdown).
    package func finishWriting() {
        for inbox in all { inbox.finishWriting() }
    }
}
