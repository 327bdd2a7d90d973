/// How much of `--inbox-size` the apps' inboxes may hold (issue 23, point
/// 4; docs/control-protocol.md, "Apps"): each app's inbox at most a
/// quarter of it, and all the apps' inboxes together at most all of it.
/// The default app's inbox keeps the whole `--inbox-size` of its own, as
/// before apps, so no app can fill it, and one app cannot fill another's.
package struct AppInboxShare: Sendable, Equatable {
    /// `--inbox-size`.
    package let limit: Int

    /// The shares of an inbox of `limit` bytes.
    package init(limit: Int) { self.limit = limit }

    /// The most record bytes one app's inbox holds.
    package var perApp: Int { limit / 4 }

    /// Why a message of `size` bytes for an app cannot be stored when the
    /// apps' inboxes hold `appsBytes` together, or nil when it can (the
    /// app's own inbox checks its quarter itself).
    package func refusal(size: Int, appsBytes: Int) -> String? {
        let record = InboxFileCodec.recordSize(dataCount: size)
        guard appsBytes + record > limit else { return nil }
        return "the apps' inboxes are full together (\(appsBytes) of \(limit) bytes; --inbox-size): a client of an app there must take messages first"
    }
}
