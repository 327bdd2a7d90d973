import Dispatch
import FoundationEssentials
import PeerProtocol

/// The download directory and Quick Save (issue 45): peerd lands files
/// where only it can read them; these take them into a folder of the
/// program's user, and set a paired peer's rule.
extension PeerClient {
    /// A page of `folder` in the download directory (`""`: its top, where
    /// each peer has a folder; TRANSFER's `folder` names a transfer's).
    public func downloads(folder: String = "", offset: Int = 0, app: String? = nil) async throws(PeerError) -> DownloadsResult {
        var params = ControlParams()
        params.folder = folder
        params.offset = offset
        params.app = app
        return try await requests.call(.downloads, params)
    }

    /// Moves everything below `folder` of the download directory into the
    /// local folder `into` (made if missing; nothing in it is replaced),
    /// keeping the paths below `folder`; with `keep`, peerd keeps its
    /// copies. It runs on a connection of its own, so this client's other
    /// requests do not wait for the copy; `progress` hears after each
    /// batch of files.
    public func fetch(folder: String, into: String, keep: Bool = false, app: String? = nil,
                      progress: @escaping @Sendable (FetchSummary) -> Void = { _ in }) async throws(PeerError) -> FetchSummary {
        let path = socketPath
        return try await BlockingIO.run(on: DispatchQueue(label: "PeerKit.fetch")) {
            do throws(ControlClientError) {
                let client = try ControlClient(path: path)
                return .success(try DownloadFetcher(client: client, app: app, keep: keep).fetchAll(folder: folder, into: into, progress: progress))
            } catch {
                return .failure(PeerError(error))
            }
        }
    }

    /// Sets `peer`'s Quick Save rule to `folder` for this program's user
    /// (its offers are then accepted without asking, and this user's agent
    /// moves its files there), or clears it with nil. The peer must be
    /// paired; another user's rule is theirs.
    @discardableResult
    public func setQuickSave(_ peer: UUID, folder: String?) async throws(PeerError) -> TrustRecord {
        var params = ControlParams(peer: peer.uuidString.lowercased())
        params.into = folder
        return try await requests.call(.quickSave, params)
    }

    /// The paired peers, with their Quick Save rules.
    public func paired() async throws(PeerError) -> [TrustRecord] {
        try await requests.call(.paired).peers
    }
}
