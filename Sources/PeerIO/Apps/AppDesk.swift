import PeerCore
import PeerProtocol

/// The apps of this host (issue 23): owns the ``AppRegistry``, answers
/// `register`, `apps`, `appAdd` and `appRemove`, and performs what the
/// registry decides: publishing (``DiscoveryCoordinator``), writing the
/// declared apps (``AppStore``), and logging withdrawals.
@MainActor
final class AppDesk {
    private var registry: AppRegistry
    private let store: AppStore
    private let discovery: DiscoveryCoordinator
    private let serviceType: String
    private let logger: Logger
    /// The sessions, told of this host's apps (given at init).
    private let sessions: SessionTable

    /// A desk whose declared apps are read back from `store`; nothing is
    /// published until ``start()``.
    init(store: AppStore, baseRecordBytes: Int, reservations: [AppName: AppReservation], discovery: DiscoveryCoordinator,
         serviceType: String, sessions: SessionTable, logger: Logger) {
        self.sessions = sessions
        self.store = store
        self.discovery = discovery
        self.serviceType = serviceType
        self.logger = logger
        registry = AppRegistry(baseRecordBytes: baseRecordBytes, reservations: reservations, declared: store.load())
    }

    /// Publishes the declared apps (before the first registration of the
    /// service, so its first announcement carries them).
    func start() {
        publish()
        for app in registry.declared { logger.info("app '\(app.name.text)' declared by uid \(app.uid)") }
    }

    /// The apps registered here.
    var rows: AppsResult { AppsResult(apps: registry.published.map { AppRow($0, serviceType: serviceType) }) }

    /// The names of the apps registered here, sorted, as `appList` carries them.
    var names: [String] { registry.published.map(\.name.text) }

    /// Whether `client` holds `app` (registered it on its connection).
    func holds(_ app: AppName, _ client: ControlConnection) -> Bool {
        registry.apps[app]?.clients.contains(client.number) ?? false
    }

    /// Whether a live client holds `app` now (one that can answer an invitation).
    func hasClients(_ app: AppName) -> Bool {
        !(registry.apps[app]?.clients.isEmpty ?? true)
    }

    /// Whether messages for `app` are kept here: the default app always;
    /// an app while a client holds it or it is declared.
    func keeps(_ app: AppName) -> Bool {
        app.isDefault || (registry.apps[app]?.isKept ?? false)
    }

    /// The app a traffic request acts for (``AppRequestRules/trafficApp(_:_:holds:)``).
    func trafficApp(_ method: ControlMethod, _ params: ControlParams, client: ControlConnection) -> Result<AppName, ControlError> {
        AppRequestRules.trafficApp(method, params) { holds($0, client) }
    }

    /// `register`: `client` holds the app while it is connected.
    func register(_ params: ControlParams, client: ControlConnection) -> Result<AppRow, ControlError> {
        keep(.register, params, client: client) { registry, name, info, credentials in
            registry.register(name, info: info, client: client.number, credentials: credentials)
        }
    }

    /// `appAdd`: the app is declared, kept across restarts.
    func declare(_ params: ControlParams, client: ControlConnection) -> Result<AppRow, ControlError> {
        keep(.appAdd, params, client: client) { registry, name, info, credentials in
            registry.declare(name, info: info, credentials: credentials)
        }
    }

    /// `appRemove`: the declaration goes; the app stays while a client holds it.
    func remove(_ params: ControlParams, client: ControlConnection) -> Result<EmptyResult, ControlError> {
        AppRequestRules.name(.appRemove, params).flatMap { name in
            registry.removeDeclared(name, credentials: credentials(of: client)).mapError(AppRequestRules.error).flatMap { changes in
                perform(changes).map { .failure($0) } ?? .success(EmptyResult())
            }
        }
    }

    /// A control connection closed: the apps it alone held are withdrawn.
    func closed(_ client: ControlConnection) {
        _ = perform(registry.clientClosed(client.number))
    }

    private func keep(_ method: ControlMethod, _ params: ControlParams, client: ControlConnection,
                      _ change: (inout AppRegistry, AppName, AppInfo?, ClientCredentials) -> Result<[AppRegistryChange], AppRefusal>)
        -> Result<AppRow, ControlError> {
        AppRequestRules.name(method, params).flatMap { name in
            AppRequestRules.info(params, for: name).flatMap { info in
                change(&registry, name, info, credentials(of: client)).mapError(AppRequestRules.error).flatMap { changes in
                    perform(changes).map { .failure($0) } ?? .success(AppRow(registry.apps[name]!, serviceType: serviceType))
                }
            }
        }
    }

    /// The kernel's word on who the client is; one the server could not
    /// ask is treated as nobody's (uid 65534), which holds nothing of anyone.
    private func credentials(of client: ControlConnection) -> ClientCredentials {
        client.credentials ?? ClientCredentials(pid: 0, uid: 65534, gid: 65534, groups: [])
    }

    /// Performs `changes`; the error when the declared apps could not be
    /// written (the change holds until the daemon stops, and the client is
    /// told it will not outlast it).
    private func perform(_ changes: [AppRegistryChange]) -> ControlError? {
        var failure: ControlError?
        for change in changes {
            switch change {
            case .republish:
                publish()
            case .withdrawn(let name):
                logger.info("app '\(name.text)' withdrawn")
            case .saveDeclared:
                do { try store.save(registry.declared) } catch {
                    logger.error("cannot write the declared apps to \(store.path): \(error)")
                    failure = ControlError(.storageFailed, "the declared apps could not be written (\(error)): the change lasts only until peerd stops")
                }
            }
        }
        return failure
    }

    /// Publishes the apps over mDNS, confirms them to every connected peer
    /// (`appList`), and lets peers whose messages an app refused for want
    /// of a client try again.
    private func publish() {
        discovery.publishApps(txt: registry.txtEntries, apps: registry.published.map(\.name))
        let names = names
        for session in sessions.sessions where session.isConnected {
            session.sendAppList(names)
            for app in session.refusedApps where keeps(app) { session.appHasRoom(app) }
        }
    }
}
