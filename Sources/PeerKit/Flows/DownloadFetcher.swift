import Glibc
import PeerProtocol
import PeerSystem

/// Takes landed files out of peerd's download directory into a folder of
/// the caller's (issue 45): the one implementation behind `peerctl fetch`,
/// ``PeerClient/fetch(folder:into:keep:app:progress:)``, the agent's Quick
/// Save and the app's "Save". It walks the folder with `downloads`, makes
/// each file itself (with the caller's rights, never over an existing
/// one: `name (1)` and so on), and hands peerd the open files with `fetch`,
/// a folder's files at most 64 at a time. peerd copies, flushes, and
/// removes its own; a file it could not copy is removed here again.
package struct DownloadFetcher {
    /// The most folders deep it walks (a transferred name has at most
    /// about that many components within `PATH_MAX`).
    static let maxDepth = 64
    /// The copy rate a `fetch`'s wait assumes at worst (other users' files
    /// take turns with ours), beyond the usual answer time and a minute.
    static let slowestBytesPerSecond: Int64 = 5 << 20

    /// The connection its requests go on (held while a fetch copies).
    let client: ControlClient
    /// The app it acts for; nil for the default app.
    let app: String?
    /// Whether peerd keeps its copies.
    let keep: Bool

    /// A fetcher over `client`, acting for `app` (nil: the default app).
    package init(client: ControlClient, app: String?, keep: Bool) {
        self.client = client
        self.app = app
        self.keep = keep
    }

    /// Fetches everything below `folder` (of the download directory; `""`
    /// for all of it) into the local folder `into` (made if missing),
    /// keeping the paths below `folder`; `progress` hears after each batch.
    package func fetchAll(folder: String, into: String, progress: (FetchSummary) -> Void = { _ in }) throws(ControlClientError) -> FetchSummary {
        let target: FileDescriptor
        // The user's own folder, made as `mkdir -p` would.
        do { target = try FileDescriptor.openFolder(into, making: 0o755) } catch {
            throw .transport("cannot use the folder \(into): \(error)")
        }
        defer { target.close() }
        var summary = FetchSummary(into: into)
        var pending: [(relative: String, depth: Int)] = [("", 0)]
        while let (relative, depth) = pending.popLast() {
            let listed = try list(join(folder, relative))
            let folders = listed.filter { $0.kind == DownloadEntry.folder }.map(\.name)
            if depth < Self.maxDepth {
                pending.append(contentsOf: folders.sorted(by: >).map { (join(relative, $0), depth + 1) })
            }
            let files = listed.filter { $0.kind == DownloadEntry.file }
            var start = 0
            while start < files.count {
                // Up to 64 files, and about 1 GiB, a request (one file at least).
                var end = start, bytes: Int64 = 0
                while end < files.count, end - start < 64, end == start || bytes + files[end].size <= 1 << 30 {
                    bytes += files[end].size
                    end += 1
                }
                try fetch(Array(files[start..<end]), folder: join(folder, relative), relative: relative, bytes: bytes, target: target, into: &summary)
                progress(summary)
                start = end
            }
        }
        return summary
    }

    /// Every entry of the download directory's `folder`, page by page
    /// (`peerctl downloads` lists with it too).
    package func list(_ folder: String) throws(ControlClientError) -> [DownloadEntry] {
        var entries: [DownloadEntry] = []
        while true {
            var params = ControlParams()
            params.folder = folder
            params.offset = entries.count
            params.app = app
            let page = try client.call(.downloads, params: params)
            entries += page.entries
            if page.entriesOmitted == 0 || page.entries.isEmpty { return entries }
        }
    }

    /// Fetches `files` of `folder` into `relative` below `target`.
    private func fetch(_ files: [DownloadEntry], folder: String, relative: String, bytes: Int64, target: FileDescriptor,
                       into summary: inout FetchSummary) throws(ControlClientError) {
        let local: FileDescriptor
        // Below it, the paths peerd listed: nothing followed through a symlink.
        do { local = try target.walk(relative.split(separator: "/").map(String.init), making: 0o755) } catch {
            for file in files { summary.failed.append(.init(path: join(relative, file.name), error: "cannot make the folder here: \(error)")) }
            return
        }
        defer { local.close() }
        var made: [(entry: DownloadEntry, name: String, descriptor: FileDescriptor)] = []
        defer { made.forEach { $0.descriptor.close() } }
        for file in files {
            do {
                let (name, descriptor) = try Self.create(file.name, in: local)
                made.append((file, name, descriptor))
            } catch {
                summary.failed.append(.init(path: join(relative, file.name), error: "cannot make the file here: \(error)"))
            }
        }
        guard !made.isEmpty else { return }
        var params = ControlParams()
        params.folder = folder
        params.paths = made.map(\.entry.name)
        params.keep = keep
        params.app = app
        let before = client.responseTimeout
        client.responseTimeout = before + .seconds(60 + bytes / Self.slowestBytesPerSecond)
        defer { client.responseTimeout = before }
        let result: FetchResult
        do { result = try client.call(.fetch, params: params, descriptors: made.map(\.descriptor)) } catch {
            // No answer: peerd may have copied some files, and removed its
            // own, before the connection broke. Only a file still empty
            // whose landed size was not is known not to be copied; every
            // other stays (a whole copy, or a part whose original is still
            // in the download directory to fetch again).
            for file in made where file.entry.size > 0 {
                var info = stat()
                if fstat(file.descriptor.rawValue, &info) == 0, info.st_size == 0 { _ = unlinkat(local.rawValue, file.name, 0) }
            }
            throw error
        }
        for (file, outcome) in zip(made, result.files) {
            if let size = outcome.size, outcome.error == nil {
                _ = fchmod(file.descriptor.rawValue, mode_t((outcome.mode ?? 0o644) & 0o755))
                if let mtime = outcome.mtime {
                    var times = [timespec(tv_sec: Int(mtime), tv_nsec: 0), timespec(tv_sec: Int(mtime), tv_nsec: 0)]
                    _ = futimens(file.descriptor.rawValue, &times)
                }
                summary.files += 1
                summary.bytes += size
                summary.saved.append(join(relative, file.name))
            } else {
                _ = unlinkat(local.rawValue, file.name, 0)
                summary.failed.append(.init(path: join(relative, file.entry.name), error: outcome.error ?? "not copied"))
            }
        }
    }


    /// Makes a new, empty file for `name` in `folder`: `name` itself, or
    /// the first of `name (1)`, `name (2)`, … not taken (before the
    /// extension). Returns the name used and the file, open for writing.
    private static func create(_ name: String, in folder: FileDescriptor) throws(SystemError) -> (String, FileDescriptor) {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let (stem, ext) = dot.map { (String(name[..<$0]), String(name[$0...])) } ?? (name, "")
        for number in 0...999 {
            let candidate = number == 0 ? name : "\(stem) (\(number))\(ext)"
            do {
                return (candidate, try folder.openAt(candidate, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600))
            } catch where error.errno == EEXIST {
                continue
            }
        }
        throw SystemError("openat", errno: EEXIST, context: "\(name) and 999 numbered names are taken")
    }

    private func join(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? name : name.isEmpty ? folder : folder + "/" + name
    }
}
