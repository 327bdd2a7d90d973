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
/// workers of their own: a listing never waits behind a long copy. Copies
/// go one file at a time, the files of different users in turns
/// (``OwnerTurns``): one user's folder of a thousand files delays another
/// user's file by one file.
@MainActor
final class DownloadShelf: SessionFeature {
    /// The two methods it answers.
    let controlMethods: Set<ControlMethod> = [.downloads, .fetch]
    private let apps: AppDesk
    private let lists: DiskWorker<ShelfDisk>
    private let copies: DiskWorker<ShelfDisk>
    /// Files waiting to be copied, by the uid that asked.
    private var waiting = OwnerTurns<UInt32, FetchJob>()
    /// The requests whose files are being copied, by number.
    private var batches: [Int: FetchBatch] = [:]
    private var nextBatch = 0
    /// Whether a file is being copied now.
    private var copying = false

    /// One file of a `fetch`.
    private struct FetchJob: Sendable {
        let batch: Int
        let index: Int
        let base: [String]
        let path: TransferPath
        let target: FileDescriptor
        let keep: Bool
    }

    /// A `fetch` request: its files' results so far, and its answer.
    private struct FetchBatch {
        var results: [FetchedFile?]
        let answer: @MainActor (ControlReply) -> Void
    }

    /// The shelf of the download directory `downloads`; `apps` says which
    /// app a connection acts for.
    init(downloads: String, apps: AppDesk) {
        self.apps = apps
        lists = DiskWorker(label: "peerd.downloads.list", state: ShelfDisk(downloads: downloads))
        copies = DiskWorker(label: "peerd.downloads.fetch", state: ShelfDisk(downloads: downloads))
    }

    /// `downloads` or `fetch`, for the app the connection acts for.
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
        // The kernel said who asked; a client it did not is one owner of its own.
        let owner = client.credentials?.uid ?? UInt32.max
        return .later { [self] answer in
            let batch = nextBatch
            nextBatch += 1
            batches[batch] = FetchBatch(results: Array(repeating: nil, count: paths.count), answer: answer)
            for (index, (path, target)) in zip(paths, targets).enumerated() {
                waiting.add(FetchJob(batch: batch, index: index, base: base, path: path, target: target, keep: keep), for: owner)
            }
            copyNext()
        }
    }

    /// Copies the next waiting file, if none is being copied; a request
    /// is answered when its last file is done.
    private func copyNext() {
        guard !copying, let (_, job) = waiting.next() else { return }
        copying = true
        copies.run({ disk in disk.fetch(base: job.base, path: job.path, into: job.target, keep: job.keep) }, then: { [weak self] result in
            guard let self else { return }
            self.copying = false
            self.batches[job.batch]?.results[job.index] = result
            if let batch = self.batches[job.batch], !batch.results.contains(where: { $0 == nil }) {
                self.batches[job.batch] = nil
                batch.answer(.answer(.fetch, FetchResult(files: batch.results.compactMap { $0 })))
            }
            self.copyNext()
        })
    }
}
