/// The apps registered on this host (issue 23), and who may use which
/// name. Pure: the control layer reports registrations, closes and
/// declarations; the registry answers with what changed
/// (``AppRegistryChange``), which the shell performs (publishing, ending
/// app sessions, writing the declared apps).
///
/// An app is live while a control connection holds it and declared while
/// it is kept across restarts; it is withdrawn when neither keeps it. The
/// first uid to register a name holds it; no other uid (root aside) may
/// register it while it is held, and the configuration may reserve a name
/// for a user or group (``AppReservation``). The default app is never
/// registered: it is what a client that names none uses.
package import PeerProtocol
package struct AppRegistry: Sendable {
    /// The most apps one host keeps. The app list is one TXT string
    /// (`apps=a,b,…`, at most 255 bytes): 15 names of 15 characters fit.
    package static let maxApps = 15

    /// The TXT record's bytes without the apps (txtvers, id, `--info`).
    package let baseRecordBytes: Int
    /// Names the configuration keeps for a user or group.
    package let reservations: [AppName: AppReservation]
    /// Each uid's share of the apps and of the record (issue 42, point 2).
    package let shares: AppShares
    /// Every registered app.
    package private(set) var apps: [AppName: AppRegistration] = [:]

    /// A registry with nothing registered; `declared` are the apps read
    /// back from disk (or the configuration).
    package init(baseRecordBytes: Int, reservations: [AppName: AppReservation] = [:], declared: [AppRegistration] = []) {
        self.baseRecordBytes = baseRecordBytes
        self.reservations = reservations
        shares = AppShares(baseRecordBytes: baseRecordBytes, reservations: reservations)
        for var app in declared.prefix(Self.maxApps) {
            app.clients = []
            app.declared = true
            apps[app.name] = app
        }
    }

    /// Registers `name` for the control connection `client` (live): a
    /// name nobody holds is taken; one held by the same uid (or asked by
    /// root) is joined, its info replaced when `info` is given.
    package mutating func register(_ name: AppName, info: AppInfo?, client: Int,
                                  credentials: ClientCredentials) -> Result<[AppRegistryChange], AppRefusal> {
        keep(name, info: info, credentials: credentials) { $0.clients.insert(client) }
    }

    /// Declares `name` (kept across restarts, held by the caller's uid).
    package mutating func declare(_ name: AppName, info: AppInfo?, credentials: ClientCredentials) -> Result<[AppRegistryChange], AppRefusal> {
        keep(name, info: info, credentials: credentials) { $0.declared = true }.map { $0 + [.saveDeclared] }
    }

    /// Removes the declaration of `name`; it is withdrawn unless a client
    /// still holds it live.
    package mutating func removeDeclared(_ name: AppName, credentials: ClientCredentials) -> Result<[AppRegistryChange], AppRefusal> {
        guard var app = apps[name], app.declared else { return .failure(.notDeclared(name)) }
        if credentials.uid != 0, credentials.uid != app.uid { return .failure(.heldByOther(name: name, uid: app.uid)) }
        app.declared = false
        return .success(settle(app) + [.saveDeclared])
    }

    /// The control connection `client` closed: every app it held live
    /// and nothing else keeps is withdrawn.
    package mutating func clientClosed(_ client: Int) -> [AppRegistryChange] {
        var changes: [AppRegistryChange] = []
        for var app in apps.values.sorted(by: { $0.name < $1.name }) where app.clients.contains(client) {
            app.clients.remove(client)
            changes += settle(app)
        }
        return changes.contains(.republish) ? [.republish] + changes.filter { $0 != .republish } : changes
    }

    /// Whether `credentials` may use `name`'s traffic (send as it, read
    /// its messages): nil when allowed, else why not. The default app is
    /// everyone's.
    package func refusal(toUse name: AppName, by credentials: ClientCredentials) -> AppRefusal? {
        guard !name.isDefault, credentials.uid != 0 else { return nil }
        if let reservation = reservations[name], !reservation.admits(credentials) {
            return .reserved(name: name, for: reservation.holder)
        }
        if let app = apps[name], app.uid != credentials.uid { return .heldByOther(name: name, uid: app.uid) }
        return nil
    }

    /// The apps published, by name.
    package var published: [AppRegistration] { apps.values.sorted { $0.name < $1.name } }

    /// The declared apps, to be written to disk.
    package var declared: [AppRegistration] { published.filter(\.declared) }

    /// The TXT strings the apps add to this host's record: `apps=a,b`
    /// (none when no app is registered), then each app's info.
    package var txtEntries: [TXTEntry] { Self.txtEntries(of: published) }

    private static func txtEntries(of apps: [AppRegistration]) -> [TXTEntry] {
        guard !apps.isEmpty else { return [] }
        return [TXTEntry(key: "apps", value: apps.map(\.name.text).joined(separator: ","))] + apps.flatMap { $0.info.published(for: $0.name) }
    }

    /// Takes or joins `name` and applies `hold` to it, if the caller may
    /// and the record has room.
    private mutating func keep(_ name: AppName, info: AppInfo?, credentials: ClientCredentials,
                               hold: (inout AppRegistration) -> Void) -> Result<[AppRegistryChange], AppRefusal> {
        if let refusal = refusal(toUse: name, by: credentials) { return .failure(refusal) }
        var app = apps[name] ?? AppRegistration(name: name, uid: credentials.uid, info: info ?? .empty)
        let isNew = apps[name] == nil
        let infoChanged = info.map { $0 != app.info } ?? false
        if let info { app.info = info }
        if isNew || infoChanged {
            if let refusal = shares.refusal(for: app, isNew: isNew, among: Array(apps.values)) { return .failure(refusal) }
            var after = apps
            after[name] = app
            let bytes = baseRecordBytes + TXTRecord.wireSize(of: Self.txtEntries(of: after.values.sorted { $0.name < $1.name }))
                + shares.keptBytes(except: name, among: Array(apps.values))
            if bytes > TXTRecord.maxRecordBytes { return .failure(.recordFull(name: name, bytes: bytes, max: TXTRecord.maxRecordBytes)) }
        }
        hold(&app)
        apps[name] = app
        return .success(isNew || infoChanged ? [.republish] : [])
    }

    /// Stores `app`, or withdraws it when nothing keeps it any more.
    private mutating func settle(_ app: AppRegistration) -> [AppRegistryChange] {
        if app.isKept {
            apps[app.name] = app
            return []
        }
        apps[app.name] = nil
        return [.republish, .withdrawn(app.name)]
    }
}
