import PeerCore
import PeerProtocol
import PeerSystem

/// The download directory as a local user reaches it (issue 45): the
/// service runs as its own user, with a state directory of mode 0700 and
/// no view of home folders, so a member of group `peerd` can neither read
/// a landed file nor be handed a path to it. `downloads` lists a folder of
/// the caller's download directory (the default app's, or its app's
/// `.apps/APP`), and `fetch` copies landed files into descriptors the
/// client opened in a folder of its own choosing, then removes them here.
/// The client's rights decide where copies go; peerd's, what is read.
///
/// It plugs in as a feature (``SessionFeature``) that owns two control
/// methods and no wire message. Listings and copies run on two disk
/// workers of their own: a listing never waits behind a long copy.
@MainActor
final class DownloadShelf: SessionFeature {
    let controlMethods: Set<ControlMethod> = [.downloads, .fetch]
    private let apps: AppDesk
    private let lists: DiskWorker<ShelfDisk>
    private let copies: DiskWorker<ShelfDisk>

    /// The shelf of the download directory `downloads`; `apps` says which
    /// app a connection acts for.
    init(downloads: String, apps: AppDesk) {
        self.apps = apps
        lists = DiskWorker(label: "peerd.downloads.list", state: ShelfDisk(downloads: downloads))
        copies = DiskWorker(label: "peerd.downloads.fetch", state: ShelfDisk(downloads: downloads))
    }

    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        // fetch's descriptors came with the line: taken first, so a refused
        // request never leaves them for the next one.
        let targets = method == .fetch ? client.takeDescriptors(params.paths?.count ?? 0) : []
        let refuse = { (error: ControlError) -> ControlReply in
            targets?.forEach { $0.close() }
            return .error(error)
        }
        let app: AppName
        switch apps.trafficApp(method, params, client: client) {
        case .success(let found): app = found
        case .failure(let error): return refuse(error)
        }
        let components: [String]
        switch DownloadRequest.folder(params.folder, isDefaultApp: app.isDefault) {
        case .success(let found): components = found
        case .failure(let error): return refuse(error)
        }
        let base = (app.isDefault ? [] : [DownloadListing.appsFolder, app.text]) + components
        let atBase = app.isDefault && components.isEmpty
        let shown = components.joined(separator: "/")
        if method == .downloads {
            let (offset, max) = (params.offset, params.max)
            return .later { [lists] answer in
                lists.run({ disk in disk.entries(base, atBase: atBase).map { DownloadListing.page($0, folder: shown, offset: offset, max: max) } },
                          then: { answer(.from(.downloads, $0)) })
            }
        }
        guard let targets else {
            return refuse(ControlError(.invalidParams, "'fetch' lists \(params.paths?.count ?? 0) files but fewer descriptors came with it"))
        }
        let paths: [TransferPath]
        switch DownloadRequest.paths(params.paths, atBase: atBase, isDefaultApp: app.isDefault) {
        case .success(let found): paths = found
        case .failure(let error): return refuse(error)
        }
        let keep = params.keep ?? false
        return .later { [copies] answer in
            copies.run({ disk in disk.fetch(base: base, paths: paths, targets: targets, keep: keep) },
                       then: { answer(.answer(.fetch, FetchResult(files: $0))) })
        }
    }
}
