/// Each uid's share of what a host's apps may take (issue 42, point 2):
/// of the ``AppRegistry/maxApps`` slots and of the TXT record's bytes
/// left for apps. A shared host has many users: without shares the first
/// to register took every slot, and a declared app kept them across
/// restarts. Pure: the registry asks before it takes or grows an app.
///
/// - A uid holds at most ``appsPerUID`` apps, and its apps add at most a
///   third of the bytes the record has for apps (each app: its name in
///   `apps=` and a comma, and its info strings).
/// - Root is not held to a share, nor is a name the configuration
///   reserves, registered by whom it admits: the administrator gave it.
/// - The slots and the name bytes of reserved names not registered yet
///   are kept for them: nobody else's app takes their place.
package import PeerProtocol
package struct AppShares: Sendable, Equatable {
    /// The apps one uid may hold: a third of the host's.
    package static let appsPerUID = AppRegistry.maxApps / 3

    /// The record's bytes that apps may fill (the record's limit less the
    /// strings that are not apps': txtvers, id, `--info`).
    package let appBytes: Int
    /// Names the configuration keeps for a user or group.
    package let reservations: [AppName: AppReservation]

    /// Shares of a record whose other strings take `baseRecordBytes`.
    package init(baseRecordBytes: Int, reservations: [AppName: AppReservation]) {
        appBytes = max(0, TXTRecord.maxRecordBytes - baseRecordBytes)
        self.reservations = reservations
    }

    /// A uid's share of ``appBytes``.
    package var bytesPerUID: Int { appBytes / 3 }

    /// What `app` adds to the record: its name and a comma in `apps=`, and
    /// its info strings.
    package static func bytes(of app: AppRegistration) -> Int {
        app.name.text.utf8.count + 1 + TXTRecord.wireSize(of: app.info.published(for: app.name))
    }

    /// Whether `app` counts in its holder's share: not root's, and not a
    /// reserved name held by whom the reservation admits.
    package func counts(_ app: AppRegistration) -> Bool {
        app.uid != 0 && reservations[app.name] == nil
    }

    /// The record bytes kept for reserved names nobody registered yet
    /// (`name` aside, and those `apps` hold): a name and a comma each.
    package func keptBytes(except name: AppName, among apps: [AppRegistration]) -> Int {
        reservations.keys.filter { kept in kept != name && !apps.contains { $0.name == kept } }.reduce(0) { $0 + $1.text.utf8.count + 1 }
    }

    /// Why `app` (new, or with new info) does not fit beside `apps` (every
    /// other registered app), or nil when it does. `isNew`: it takes a slot.
    package func refusal(for app: AppRegistration, isNew: Bool, among apps: [AppRegistration]) -> AppRefusal? {
        let others = apps.filter { $0.name != app.name }
        // Slots and name bytes kept for reserved names nobody registered yet.
        let waiting = reservations.keys.filter { name in name != app.name && !others.contains { $0.name == name } }
        if isNew, reservations[app.name] == nil, others.count + 1 + waiting.count > AppRegistry.maxApps {
            return .tooMany(max: AppRegistry.maxApps, keptForReserved: waiting.count)
        }
        guard counts(app) else { return nil }
        let mine = others.filter { $0.uid == app.uid && counts($0) }
        if isNew, mine.count >= Self.appsPerUID {
            return .shareFull(uid: app.uid, what: "apps", holds: mine.count, share: Self.appsPerUID)
        }
        let bytes = mine.reduce(Self.bytes(of: app)) { $0 + Self.bytes(of: $1) }
        if bytes > bytesPerUID {
            return .shareFull(uid: app.uid, what: "bytes of the TXT record", holds: bytes, share: bytesPerUID)
        }
        return nil
    }
}
